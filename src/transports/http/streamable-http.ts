import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { AddressInUseError } from '../../errors/address-in-use.error';
import type { HttpOptions, ResolvedHttpOptions } from './http-options';
import type { SessionFactory } from './session-directory';
import type { HttpMiddleware, HttpTransport, RequestListener } from './http-handler.types';
import { KoaExchange } from './koa-exchange';
import { McpEndpoint } from './mcp-endpoint';

export type { SessionFactory } from './session-directory';
export type { HttpMiddleware, HttpTransport, RequestListener } from './http-handler.types';

/**
 * The Streamable HTTP transport on Koa and Node's HTTP server: the Koa front door of the MCP endpoint
 * (McpEndpoint holds every rule of it, and matches its routes as the fetch handler does). This class
 * serves the endpoint as one Koa middleware, mounts the OAuth proxy's endpoints, and owns the Node server.
 */
export class StreamableHttpTransport implements HttpTransport {
  readonly options: ResolvedHttpOptions;
  private readonly endpoint: McpEndpoint;
  private readonly koa: Koa;
  private server?: Server;

  constructor(factory: SessionFactory, options: HttpOptions = {}) {
    this.endpoint = new McpEndpoint(factory, options);
    this.options = this.endpoint.options;
    this.koa = new Koa();
    this.koa.use(this.koaMiddleware());
    // A client dropping a long-lived stream is normal; anything else goes to the server log, not Koa's console.error.
    this.koa.on('error', (error: NodeJS.ErrnoException) => {
      if (!['ECONNRESET', 'EPIPE', 'ECONNABORTED'].includes(error?.code ?? '')) factory.logError('An HTTP request failed', error);
    });
  }

  /** A Koa middleware serving the MCP endpoint (and health path); mount it in your own Koa app. */
  middleware(): HttpMiddleware {
    return this.koaMiddleware() as HttpMiddleware;
  }

  private koaMiddleware(): Koa.Middleware {
    // A request no route of the endpoint takes goes on to the next middleware.
    const routes: Koa.Middleware = async (ctx, next) => {
      if (!(await this.endpoint.serve(new KoaExchange(ctx)))) await next();
    };
    const proxy = this.options.oauthProxy;
    if (!proxy) return routes;
    // The authorization server's endpoints answer on the raw request, before the MCP routes.
    return async (ctx, next) => {
      ctx.respond = false;
      if (await proxy.handle(ctx.req, ctx.res)) return;
      ctx.respond = true;
      await routes(ctx, next);
    };
  }

  /** A Node request listener (for http.createServer or supertest). */
  callback(): RequestListener {
    return this.koa.callback();
  }

  /** Starts a standalone server (what `app.listen(httpServer(options))` does); resolves with the bound address. */
  async listen(): Promise<{ host: string; port: number; url: string }> {
    const listener = this.callback();
    // Node's server bounds how long a request may take to arrive (its headers and body): 408, and the
    // connection closed. It checks its connections at most every 30 s, more often for a shorter limit.
    const requestTimeout = this.options.requestTimeoutMs;
    const timeouts =
      requestTimeout > 0
        ? {
            requestTimeout,
            headersTimeout: Math.min(60_000, requestTimeout),
            connectionsCheckingInterval: Math.min(30_000, Math.max(10, Math.floor(requestTimeout / 4))),
          }
        : { requestTimeout: 0 };
    // Koa's handler settles every request itself (its errors go to ctx.onerror): the promise never rejects.
    const server = createServer(timeouts, (req, res) => void listener(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EADDRINUSE') reject(error);
        else reject(new AddressInUseError(this.options.host, this.options.port, { cause: error }));
      });
      server.listen(this.options.port, this.options.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    const url = `http://${host}:${port}${this.options.path}`;
    this.endpoint.bound(port, url);
    return { host: this.options.host, port, url };
  }

  /** Answers new requests with 503 and stops accepting connections; requests in flight go on. */
  stopAccepting(): void {
    this.endpoint.stopAccepting();
    this.server?.close();
  }

  /** Sessions served here, HTTP+SSE ones included. */
  get sessionCount(): number {
    return this.endpoint.sessionCount;
  }

  /** Stops accepting, ends every stream and session, and closes the server. */
  async close(): Promise<void> {
    this.endpoint.stopAccepting();
    this.server?.close();
    await this.endpoint.close();
    this.server?.closeAllConnections();
  }
}
