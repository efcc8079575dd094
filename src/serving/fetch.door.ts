import { servingOf } from '../kernel/app-internals';
import type { McpApplication } from '../kernel/mcp-application';
import { createFetchHandler } from '../transports/http/fetch-handler';
import type { FetchHandler, LambdaHandler } from '../transports/http/http-handler.types';
import type { HttpOptions } from '../transports/http/http-options';
import { lambdaAdapter } from '../transports/http/lambda-adapter';
import { httpOptionsOf } from './http-defaults';

/**
 * The MCP endpoint of `app` as a web-standard fetch handler, `(request: Request) => Promise<Response>`:
 * for Bun, Deno, Cloudflare Workers or any route handler. It takes the HTTP options (`port` and `host`
 * aside: the runtime listens) and loads no Koa. Closed with the application.
 */
export function fetchHandler(app: McpApplication, options: HttpOptions = {}): FetchHandler {
  const serving = servingOf(app);
  const handler = createFetchHandler(serving.sessionFactory(), httpOptionsOf(serving, options));
  serving.track({ stopAccepting: () => handler.stopAccepting(), close: () => handler.close() });
  return handler;
}

/**
 * The fetch handler as an AWS Lambda handler for HTTP payload 2.0 events (API Gateway HTTP APIs,
 * function URLs): `export const handler = lambdaHandler(app, { sessions: false, allowedHosts: [...] })`.
 * Answers are buffered (Lambda returns a result once), so keep requests stateless.
 */
export function lambdaHandler(app: McpApplication, options: HttpOptions = {}): LambdaHandler {
  return lambdaAdapter(fetchHandler(app, options));
}
