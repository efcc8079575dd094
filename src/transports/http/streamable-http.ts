import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { InMemoryEventStore } from './event-store';
import { type Ctx, fail } from './http-replies';
import { type HttpOptions, type ResolvedHttpOptions, resolveHttpOptions } from './http-options';
import { PostHandler } from './post-handler';
import { ALLOW, RequestGuards } from './request-guards';
import { SessionDirectory, type SessionFactory } from './session-directory';
import type { SseConnection } from './sse-stream';
import { type ChannelHost, SessionChannelContext } from './session-channel-context';
import type { ChannelContext } from './stream-channel';
import { StreamHandlers } from './stream-handlers';
import type { HttpMiddleware, HttpTransport, RequestListener } from './http-handler.types';
import { loadKoa } from './koa-loader';
import { LegacySseEndpoint } from './legacy-sse';
import { checkReadiness } from './readiness';

export type { SessionFactory } from './session-directory';
export type { HttpMiddleware, HttpTransport, RequestListener } from './http-handler.types';

/**
 * The Streamable HTTP transport (MCP 2025-11-25) on Koa: one endpoint for POST, GET and DELETE,
 * JSON or SSE answers, sessions, resumable streams, and the safety checks of the spec. This class
 * routes and owns the lifecycle; the methods are served by PostHandler and StreamHandlers, and the
 * 2024-11-05 HTTP+SSE endpoint for older clients by LegacySseEndpoint.
 */
export class StreamableHttpTransport implements HttpTransport {
  readonly options: ResolvedHttpOptions;
  private readonly koa: Koa;
  private readonly sessions: SessionDirectory;
  private readonly connections = new Set<SseConnection>();
  private readonly guards: RequestGuards;
  private readonly posts: PostHandler;
  private readonly streams: StreamHandlers;
  /** The 2024-11-05 HTTP+SSE endpoint, unless turned off. */
  private readonly legacy?: LegacySseEndpoint;
  private readonly modernOnly: boolean;
  private server?: Server;
  private timers: NodeJS.Timeout[] = [];
  private closing = false;

  constructor(
    private readonly factory: SessionFactory,
    options: HttpOptions = {},
  ) {
    this.options = resolveHttpOptions(options, () => new InMemoryEventStore());
    const logError = (message: string, error?: unknown) => factory.logError(message, error);
    this.options.eventStore?.attachLogger?.(logError);
    this.guards = new RequestGuards(this.options, options.port || undefined, logError);
    const channels = this.channelHost();
    this.sessions = new SessionDirectory(factory, this.options, (id) => new SessionChannelContext(channels, id));
    // A stateless request's stream: no session id, nothing stored, nothing shared.
    const stateless: ChannelContext = {
      retryMs: channels.retryMs,
      headers: {},
      track: (connection, open) => channels.track(connection, open),
      logError,
    };
    this.posts = new PostHandler(this.options, this.sessions, this.guards, logError, factory.modern, factory.stateless, stateless);
    this.streams = new StreamHandlers(this.options, this.sessions, this.guards);
    // A server serving only the modern era has no sessions, standalone streams or HTTP+SSE endpoint.
    this.modernOnly = factory.modern?.support === 'modern';
    const { legacySse } = this.options;
    if (legacySse && !this.modernOnly) {
      this.legacy = new LegacySseEndpoint(
        { ...this.options, legacySse },
        {
          factory,
          guards: this.guards,
          track: (connection, open) => (open ? this.connections.add(connection) : this.connections.delete(connection)),
          otherSessions: () => this.sessions.size,
        },
      );
    }
    this.koa = new (loadKoa().Koa)();
    this.koa.use(this.koaMiddleware());
    // A client dropping a long-lived stream is normal; anything else goes to the server log, not Koa's console.error.
    this.koa.on('error', (error: NodeJS.ErrnoException) => {
      if (!['ECONNRESET', 'EPIPE', 'ECONNABORTED'].includes(error?.code ?? '')) logError('An HTTP request failed', error);
    });
    this.startTimers();
  }

  /** A Koa middleware serving the MCP endpoint (and health path); mount it in your own Koa app. */
  middleware(): HttpMiddleware {
    return this.koaMiddleware() as HttpMiddleware;
  }

  private koaMiddleware(): Koa.Middleware {
    const router = new (loadKoa().Router)();
    const { path, healthPath } = this.options;
    router.post(path, (ctx) => this.guarded(ctx, () => this.posts.handle(ctx)));
    if (!this.modernOnly) {
      router.get(path, (ctx) => this.guarded(ctx, () => this.streams.get(ctx)));
      router.delete(path, (ctx) => this.guarded(ctx, () => this.streams.delete(ctx)));
    }
    router.options(path, (ctx) => this.guards.preflight(ctx));
    router.all(path, (ctx) => {
      ctx.set('Allow', this.modernOnly ? 'POST' : ALLOW);
      fail(ctx, 405, -32000, 'Method not allowed');
    });
    if (healthPath) router.get(healthPath, (ctx) => this.health(ctx));
    if (this.options.readyPath) router.get(this.options.readyPath, (ctx) => this.ready(ctx));
    const { legacy } = this;
    if (legacy && this.options.legacySse) {
      const { path: ssePath, messagesPath } = this.options.legacySse;
      router.get(ssePath, (ctx) => this.guarded(ctx, () => legacy.open(ctx)));
      router.post(messagesPath, (ctx) => this.guarded(ctx, () => legacy.post(ctx)));
      router.options(ssePath, (ctx) => this.guards.preflight(ctx));
      router.options(messagesPath, (ctx) => this.guards.preflight(ctx));
    }
    const resourceServer = this.guards.resourceServer;
    for (const metadataPath of resourceServer?.metadataPaths ?? []) {
      const serve = (ctx: Ctx) => {
        if (!this.guards.hostRefused(ctx)) resourceServer!.serveMetadata(ctx);
      };
      router.get(metadataPath, serve);
      router.options(metadataPath, serve);
    }
    const routes = router.routes() as unknown as Koa.Middleware;
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

  /** Starts a standalone server; resolves with the bound address. */
  async listen(): Promise<{ host: string; port: number; url: string }> {
    const listener = this.callback();
    // Koa's handler settles every request itself (its errors go to ctx.onerror): the promise never rejects.
    const server = createServer((req, res) => void listener(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    this.guards.host.setPort(port);
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    const url = `http://${host}:${port}${this.options.path}`;
    this.guards.resourceServer?.listening(url);
    return { host: this.options.host, port, url };
  }

  /** Answers new requests with 503 and stops accepting connections; requests in flight go on. */
  stopAccepting(): void {
    this.closing = true;
    this.server?.close();
  }

  /** Sessions served here, HTTP+SSE ones included. */
  get sessionCount(): number {
    return this.sessions.size + (this.legacy?.size ?? 0);
  }

  /** Stops accepting, ends every stream and session, and closes the server. */
  async close(): Promise<void> {
    this.closing = true;
    for (const t of this.timers) clearInterval(t);
    this.server?.close();
    await this.sessions.closeAll();
    this.legacy?.closeAll();
    for (const c of [...this.connections]) c.end();
    this.server?.closeAllConnections();
  }

  /** Runs a method handler behind the guards; a fault it did not handle still gets a JSON-RPC answer. */
  private async guarded(ctx: Ctx, handle: () => Promise<void>): Promise<void> {
    if (!this.guards.admit(ctx, this.closing)) return;
    try {
      await handle();
    } catch (error) {
      this.guards.unexpected(ctx, error);
    }
  }

  /** The health endpoint, behind the same Host/Origin check as the MCP path (it tells the session count). */
  private health(ctx: Ctx): void {
    if (this.guards.hostRefused(ctx)) return;
    ctx.body = { status: 'ok', sessions: this.sessions.size };
  }

  /**
   * The readiness endpoint: 200 `{status:'ready'}` or 503 `{status:'not ready'}`; the per-store detail
   * only for a request whose Host (and Origin) is an allowed host, never for a foreign one.
   */
  private async ready(ctx: Ctx): Promise<void> {
    const { eventStore, sessionBackplane } = this.options;
    const report = await checkReadiness({ taskStore: this.factory.readiness?.taskStore, eventStore, sessionBackplane });
    const local = this.guards.host.check(ctx.get('host') || undefined, ctx.get('origin') || undefined) === undefined;
    ctx.status = report.ready ? 200 : 503;
    ctx.body = { status: report.ready ? 'ready' : 'not ready', ...(local ? { stores: report.stores } : {}) };
  }

  /** What the streams of every session share: one object, so that a held session holds only its own id. */
  private channelHost(): ChannelHost {
    const sessions = (): SessionDirectory | undefined => this.sessions;
    return {
      retryMs: this.options.retryMs,
      eventStore: this.options.eventStore,
      // The directory makes the cluster, and is made after this: read when a session is built.
      get cluster() {
        return sessions()?.cluster;
      },
      track: (connection, open) => void (open ? this.connections.add(connection) : this.connections.delete(connection)),
      logError: (message, error) => this.factory.logError(message, error),
    };
  }

  private startTimers(): void {
    const { keepAliveMs, sessionIdleTimeoutMs } = this.options;
    if (keepAliveMs > 0) {
      this.timers.push(setInterval(() => this.connections.forEach((c) => c.keepAlive()), keepAliveMs).unref());
    }
    if (this.options.sessions) {
      const sweep = Math.max(1_000, Math.min(60_000, Math.floor(sessionIdleTimeoutMs / 2)));
      this.timers.push(setInterval(() => this.sessions.sweep(), sweep).unref());
    }
  }
}
