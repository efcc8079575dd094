/**
 * `mcpkit/fetch`: the MCP endpoint as a web-standard fetch handler (Bun, Deno, Cloudflare Workers, any
 * route handler) and as an AWS Lambda handler. It loads no Koa and no Node HTTP server.
 *
 * @module mcpkit/fetch
 */
export { fetchHandler, lambdaHandler } from '../serving/fetch.door';
export type { FetchHandler, LambdaHandler, LambdaHttpEvent, LambdaHttpResult } from '../transports/http/http-handler.types';
