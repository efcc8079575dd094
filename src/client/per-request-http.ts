import { isPerRequestVersion, MetaKey, metaOf } from '../mcp/eras';
import type { JsonRpcMessage } from '../mcp/json-rpc';
import type { ClientMessage } from './client-transport';
import { namedParam, paramHeaders, type ParamHeader } from '../schema/mcp-header';

/** True when HTTP messages are exchanged in the 2026-07-28 era (per request, no session). */
export function isPerRequestHttp(protocolVersion: string | undefined): boolean {
  return isPerRequestVersion(protocolVersion);
}

/**
 * The headers of a 2026-07-28 request, read from its envelope (so server/discover has them before any
 * version is agreed): MCP-Protocol-Version, `Mcp-Method`, and `Mcp-Name` for the methods that name
 * something (a value that is not plain visible ASCII goes as `=?base64?…?=`). None for other messages.
 */
export function perRequestRequestHeaders(message: ClientMessage): Record<string, string> {
  if (typeof message.method !== 'string' || message.id === undefined) return {};
  const version = metaOf(message as unknown as JsonRpcMessage)?.[MetaKey.protocolVersion];
  if (typeof version !== 'string' || !isPerRequestVersion(version)) return {};
  const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': message.method };
  const field = namedParam(message.method);
  const value = field ? (message.params as Record<string, unknown> | undefined)?.[field] : undefined;
  if (typeof value === 'string')
    headers['mcp-name'] = /^[\x21-\x7e]*$/.test(value) ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
  return headers;
}

/** A header value: visible ASCII as is, anything else as `=?base64?…?=`. */
const headerValue = (value: string) =>
  /^[\x20-\x7e]*$/.test(value) && value.trim() === value ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

/**
 * The `x-mcp-header` annotations of the tools a 2026-07-28 server listed, by tool name, so that a
 * tools/call mirrors those arguments into `Mcp-Param-{Name}` headers as the server requires.
 */
export class ParamHeaderBook {
  private readonly byTool = new Map<string, ParamHeader[]>();

  /** Reads the annotations of listed tools (a tool whose annotations break the rules is called without them). */
  learn(tools: unknown): void {
    if (!Array.isArray(tools)) return;
    for (const tool of tools as { name?: unknown; inputSchema?: unknown }[]) {
      if (typeof tool?.name !== 'string' || typeof tool.inputSchema !== 'object' || tool.inputSchema === null) continue;
      let found: ParamHeader[] = [];
      try {
        found = paramHeaders(tool.inputSchema);
      } catch {
        // not annotated by the rules: no headers
      }
      if (found.length > 0) this.byTool.set(tool.name, found);
      else this.byTool.delete(tool.name);
    }
  }

  /** The `Mcp-Param-*` headers of a tools/call, if its tool has annotated arguments. */
  headersFor(method: string, params: Record<string, unknown> | undefined): Record<string, string> | undefined {
    const found = method === 'tools/call' && typeof params?.name === 'string' ? this.byTool.get(params.name) : undefined;
    if (!found) return undefined;
    const headers: Record<string, string> = {};
    for (const { path, name } of found) {
      let node: unknown = params?.arguments;
      for (const key of path)
        node =
          typeof node === 'object' && node !== null && Object.prototype.hasOwnProperty.call(node, key)
            ? (node as Record<string, unknown>)[key]
            : undefined;
      if (typeof node === 'string') headers[`mcp-param-${name.toLowerCase()}`] = headerValue(node);
      else if (typeof node === 'number' || typeof node === 'boolean') headers[`mcp-param-${name.toLowerCase()}`] = String(node);
    }
    return headers;
  }
}
