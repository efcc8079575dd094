import { AuthConfigurationError } from '../../auth/auth-configuration.error';
import { FetchExchange } from './fetch-exchange';
import type { NetworkFacts } from '../../observability/telemetry-options';
import type { FetchHandler } from './http-handler.types';
import type { HttpOptions } from './http-options';
import { McpEndpoint } from './mcp-endpoint';
import type { SessionFactory } from './session-directory';

export type { FetchHandler } from './http-handler.types';

/**
 * The web-standard front door of the MCP endpoint: a `Request` in, a `Response` out (its body a
 * ReadableStream when the answer is SSE). Every rule is McpEndpoint's, as on Koa; this only adapts.
 * Options that need Node's server are refused: `oauthProxy` (its endpoints take Node's request).
 */
export function createFetchHandler(factory: SessionFactory, options: HttpOptions = {}): FetchHandler {
  if (options.oauthProxy)
    throw new AuthConfigurationError('oauthProxy runs on the Node server (app.listen or httpTransport), not in a fetch handler');
  const endpoint = new McpEndpoint(factory, options);
  const handler = async (request: Request, runtime?: unknown): Promise<Response> => {
    const exchange = new FetchExchange(request, networkOf(request, runtime));
    try {
      if (!(await endpoint.serve(exchange))) return new Response('Not Found', { status: 404, headers: TEXT });
    } catch (error) {
      // What the endpoint did not answer itself (its handlers answer their own faults): as Koa answers it.
      factory.logError(`${request.method} ${exchange.path} failed`, error);
      return new Response('Internal Server Error', { status: 500, headers: TEXT });
    }
    return exchange.response();
  };
  return Object.defineProperties(handler, {
    sessionCount: { get: () => endpoint.sessionCount },
    stopAccepting: { value: () => endpoint.stopAccepting() },
    close: { value: () => endpoint.close() },
  }) as FetchHandler;
}

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8' };

/** The caller's address, from what the runtime passes beside the request (Deno's ServeHandlerInfo, Bun's Server). */
function networkOf(request: Request, runtime: unknown): NetworkFacts {
  if (!runtime || typeof runtime !== 'object') return {};
  const deno = (runtime as { remoteAddr?: { hostname?: unknown; port?: unknown } }).remoteAddr;
  if (deno && typeof deno.hostname === 'string')
    return { peerAddress: deno.hostname, peerPort: typeof deno.port === 'number' ? deno.port : undefined };
  const bun = runtime as { requestIP?: (request: Request) => { address: string; port: number } | null };
  if (typeof bun.requestIP === 'function') {
    const ip = bun.requestIP(request);
    if (ip) return { peerAddress: ip.address, peerPort: ip.port };
  }
  return {};
}
