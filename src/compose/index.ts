/**
 * `mcpkit/compose`: one server made of others. `mount(app, prefix, Module)` serves another module (or
 * application) under a prefix; `proxy(app, prefix, transport)` serves a remote MCP server's tools,
 * resources and prompts under one; `unmount(app, prefix)` lets either go.
 *
 * @module mcpkit/compose
 */
export { mount, proxy, unmount } from '../serving/compose';
export type { ProxyOptions } from '../composition/proxy';
export type { ProxyTransport } from '../composition/proxy-link';
