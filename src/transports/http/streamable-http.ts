import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { AddressInUseError } from '../../errors/address-in-use.error';
import type { HttpOptions, ResolvedHttpOptions } from './http-options';
import type { SessionFactory } from './session-directory';
import type { HttpMiddleware, HttpTransport, RequestListener } from './http-handler.types';
import { KoaExchange } from './koa-exchange';
import { routeKey } from './endpoint-routes';
import { loadKoa, loadNodeHttp, loadRouter } from './koa-loader';
import { McpEndpoint } from './mcp-endpoint';

export type { SessionFactory } from './session-directory';
export type { HttpMiddleware, HttpTransport, RequestListener } from './http-handler.types';

/**
 * The Streamable HTTP transport on Koa and Node's HTTP server: the Koa front door of the MCP endpoint
 * (McpEndpoint holds every rule of it). This class registers the endpoint's routes on Koa's router,
 * mounts the OAuth proxy's endpoints, and owns the Node server.
 */
export class StreamableHttpTransport implements HttpTransport {
  readonly options: ResolvedHttpOptions;
  private readonly endpoint: McpEndpoint;
  private readonly koa: Koa;
  /** The endpoint's routes on Koa's router, made when a request first needs them. */
  private routes?: Koa.Middleware;
  private server?: Server;

  constructor(factory: SessionFactory, options: HttpOptions = {}) {
    this.endpoint = new McpEndpoint(factory, options);
    this.options = this.endpoint.options;
    this.koa = new (loadKoa().Koa)();
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
    const routes: Koa.Middleware = async (ctx, next) => {
      await (this.routes ??= this.router())(ctx, next);
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

  /** The endpoint's route table on a Koa router: a request no route takes goes on to the next middleware. */
  private router(): Koa.Middleware {
    const router = new (loadRouter())();
    for (const { method, path, handle } of this.endpoint.routes) {
      const serve: Koa.Middleware = (ctx) => handle(new KoaExchange(ctx));
      // A configured path is literal text, not a pattern: path-to-regexp's own characters are escaped.
      const literal = routeKey(path).replace(/[{}()[\]+?!:*\\]/g, '\\$&');
      if (method === '*') router.all(literal, serve);
      else router.register(literal, [method], serve);
    }
    return router.routes() as Koa.Middleware;
  }

  /** A Node request listener (for http.createServer or supertest). */
  callback(): RequestListener {
    return this.koa.callback();
  }

  /** Starts a standalone server (what `app.listen({ http })` does); resolves with the bound address. */
  async listen(): Promise<{ host: string; port: number; url: string }> {
    const listener = this.callback();
    // Koa's handler settles every request itself (its errors go to ctx.onerror): the promise never rejects.
    const server = loadNodeHttp().createServer((req, res) => void listener(req, res));
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
