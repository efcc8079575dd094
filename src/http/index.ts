/**
 * `mcpkit/http`: Streamable HTTP on Node, with Koa. `httpServer(options)` is the front door
 * `app.listen` opens (a Node server of its own); `httpTransport(app, options)` is the endpoint for a
 * server you run (Koa middleware, a Node request listener). For Bun, Deno, Workers and Lambda, see
 * `mcpkit/fetch`, which loads no Koa.
 *
 * @module mcpkit/http
 */
export { httpServer, httpTransport } from '../serving/http.door';
export type { HttpAddress } from '../serving/http.door';
export type { HttpOptions } from '../transports/http/http-options';
export type { HttpTransport, HttpMiddleware, RequestListener } from '../transports/http/http-handler.types';
