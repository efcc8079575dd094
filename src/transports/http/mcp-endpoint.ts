import { type EndpointRoute, routeMatcher } from './endpoint-routes';
import { InMemoryEventStore } from './event-store';
import type { HttpExchange } from './http-exchange';
import { fail, replyDocument, serveDiscovery } from './http-replies';
import { type HttpOptions, type ResolvedHttpOptions, resolveHttpOptions } from './http-options';
import { Sse2024Endpoint } from './sse-2024';
import { PostHandler } from './post-handler';
import { checkReadiness } from './readiness';
import { ALLOW, RequestGuards } from './request-guards';
import { SessionDirectory, type SessionFactory } from './session-directory';
import type { SseConnection } from './sse-stream';
import { type ChannelHost, SessionChannelContext } from './session-channel-context';
import { StreamHandlers } from './stream-handlers';
import { Negotiation } from '../../http/negotiation';

/** Where a server card is served (SEP-2127, a draft). */
const SERVER_CARD_PATH = '/.well-known/mcp/server-card';

/**
 * The MCP endpoint on any runtime: the Streamable HTTP rules (MCP 2025-11-25 and 2026-07-28) on one
 * path for POST, GET and DELETE, the health, readiness, OAuth metadata and server card paths, and the 2024-11-05
 * HTTP+SSE endpoint; sessions, streams and their timers. Its routes are one table (`routes`), each
 * serving an HttpExchange, so both front doors run these same rules: Koa (StreamableHttpTransport)
 * registers the table on its router, the web-standard fetch handler matches it (`serve`); each only
 * adapts its request and writes the answer.
 */
export class McpEndpoint {
  readonly options: ResolvedHttpOptions;
  readonly guards: RequestGuards;
  private readonly sessions: SessionDirectory;
  private readonly connections = new Set<SseConnection>();
  private readonly posts: PostHandler;
  private readonly streams: StreamHandlers;
  /** The 2024-11-05 HTTP+SSE endpoint, unless turned off. */
  private readonly sseEndpoint?: Sse2024Endpoint;
  private readonly perRequestOnly: boolean;
  /** Every route of the endpoint, in the order they are matched. */
  readonly routes: readonly EndpointRoute[];
  private readonly match: (method: string, path: string) => EndpointRoute | undefined;
  /** Started with the first request: a runtime may forbid timers outside one (Cloudflare Workers does at load). */
  private timers?: ReturnType<typeof setInterval>[];
  private closing = false;

  constructor(
    private readonly factory: SessionFactory,
    options: HttpOptions,
  ) {
    this.options = resolveHttpOptions(options, () => new InMemoryEventStore());
    const logError = (message: string, error?: unknown) => factory.logError(message, error);
    this.options.eventStore?.attachLogger?.(logError);
    this.guards = new RequestGuards(this.options, options.port || undefined, logError);
    const channels = this.channelHost();
    const negotiation = new Negotiation();
    this.sessions = new SessionDirectory(factory, this.options, (id) => new SessionChannelContext(channels, id));
    this.posts = new PostHandler(
      this.options,
      this.sessions,
      this.guards,
      logError,
      factory.perRequest,
      factory.stateless,
      // A stateless request's stream: no session id, nothing stored, nothing shared.
      { retryMs: channels.retryMs, headers: {}, track: (connection, open) => channels.track(connection, open), logError },
      negotiation,
    );
    this.streams = new StreamHandlers(this.options, this.sessions, this.guards, negotiation);
    // A server serving only the per-request era has no sessions, standalone streams or HTTP+SSE endpoint.
    this.perRequestOnly = factory.perRequest?.support === 'per-request';
    const { sse2024 } = this.options;
    if (sse2024 && !this.perRequestOnly) {
      this.sseEndpoint = new Sse2024Endpoint(
        { ...this.options, sse2024 },
        {
          factory,
          guards: this.guards,
          negotiation,
          track: (connection, open) => (open ? this.connections.add(connection) : this.connections.delete(connection)),
          otherSessions: () => this.sessions.size,
        },
      );
    }
    this.routes = this.defineRoutes();
    this.match = routeMatcher(this.routes);
  }

  /**
   * Serves the exchange when a route takes it; resolves once its answer has started (a stream goes on
   * after). False when no route takes its method and path: nothing was answered.
   */
  async serve(exchange: HttpExchange): Promise<boolean> {
    const route = this.match(exchange.method, exchange.path);
    if (!route) return false;
    await route.handle(exchange);
    return true;
  }

  /** The server listens on `port`, at `url` (the resource, when none was configured). */
  bound(port: number, url: string): void {
    this.guards.host.setPort(port);
    this.guards.resourceServer?.listening(url);
  }

  /** Answers new requests with 503; requests in flight go on. */
  stopAccepting(): void {
    this.closing = true;
  }

  /** Sessions served here, HTTP+SSE ones included. */
  get sessionCount(): number {
    return this.sessions.size + (this.sseEndpoint?.size ?? 0);
  }

  /** Stops accepting, then ends every stream and session. */
  async close(): Promise<void> {
    this.closing = true;
    for (const t of this.timers ?? []) clearInterval(t);
    await this.sessions.closeAll();
    this.sseEndpoint?.closeAll();
    for (const c of [...this.connections]) c.end();
  }

  private defineRoutes(): EndpointRoute[] {
    const { path, healthPath, readyPath, sse2024 } = this.options;
    const routes: EndpointRoute[] = [];
    const route = (path: string, method: string, handle: (exchange: HttpExchange) => void | Promise<void>) =>
      routes.push({
        path,
        method,
        handle: async (exchange) => {
          this.timers ??= this.startTimers();
          await handle(exchange);
        },
      });
    const guarded = (handle: (exchange: HttpExchange) => void | Promise<void>) => (exchange: HttpExchange) =>
      this.guarded(exchange, handle);
    const preflight = (exchange: HttpExchange) => this.guards.preflight(exchange);
    route(
      path,
      'POST',
      guarded((e) => this.posts.handle(e)),
    );
    if (!this.perRequestOnly) {
      route(
        path,
        'GET',
        guarded((e) => this.streams.get(e)),
      );
      route(
        path,
        'DELETE',
        guarded((e) => this.streams.delete(e)),
      );
    }
    route(path, 'OPTIONS', preflight);
    if (healthPath) route(healthPath, 'GET', (e) => this.health(e));
    if (readyPath) route(readyPath, 'GET', (e) => this.ready(e));
    const { sseEndpoint } = this;
    if (sseEndpoint && sse2024) {
      route(
        sse2024.path,
        'GET',
        guarded((e) => sseEndpoint.open(e)),
      );
      route(
        sse2024.messagesPath,
        'POST',
        guarded((e) => sseEndpoint.post(e)),
      );
      route(sse2024.path, 'OPTIONS', preflight);
      route(sse2024.messagesPath, 'OPTIONS', preflight);
    }
    const resourceServer = this.guards.resourceServer;
    for (const metadataPath of resourceServer?.metadataPaths ?? []) {
      const serve = (exchange: HttpExchange) => {
        if (!this.guards.discoveryRefused(exchange)) resourceServer!.serveMetadata(exchange);
      };
      route(metadataPath, 'GET', serve);
      route(metadataPath, 'OPTIONS', serve);
    }
    const { serverCard } = this.options;
    if (serverCard) {
      const serve = (exchange: HttpExchange) => {
        if (!this.guards.discoveryRefused(exchange)) serveDiscovery(exchange, () => serverCard);
      };
      route(SERVER_CARD_PATH, 'GET', serve);
      route(SERVER_CARD_PATH, 'OPTIONS', serve);
    }
    // Last, so that every route above wins over it: any other method on the MCP path.
    route(path, '*', (exchange) => {
      exchange.setHeader('Allow', this.perRequestOnly ? 'POST' : ALLOW);
      fail(exchange, 405, -32000, 'Method not allowed');
    });
    return routes;
  }

  /** Runs a method handler behind the guards; a fault it did not handle still gets a JSON-RPC answer. */
  private async guarded(exchange: HttpExchange, handle: (exchange: HttpExchange) => void | Promise<void>): Promise<void> {
    if (!this.guards.admit(exchange, this.closing)) return;
    try {
      await handle(exchange);
    } catch (error) {
      this.guards.unexpected(exchange, error);
    }
  }

  /** The health endpoint, behind the same Host/Origin check as the MCP path (it tells the session count). */
  private health(exchange: HttpExchange): void {
    if (this.guards.hostRefused(exchange)) return;
    replyDocument(exchange, 200, { status: 'ok', sessions: this.sessions.size });
  }

  /**
   * The readiness endpoint: 200 `{status:'ready'}` or 503 `{status:'not ready'}`; the per-store detail
   * only for a request whose Host (and Origin) is an allowed host, never for a foreign one.
   */
  private async ready(exchange: HttpExchange): Promise<void> {
    const { eventStore, sessionBackplane } = this.options;
    const report = await checkReadiness({ taskStore: this.factory.readiness?.taskStore, eventStore, sessionBackplane });
    const local = this.guards.host.check(exchange.header('host') || undefined, exchange.header('origin') || undefined) === undefined;
    replyDocument(exchange, report.ready ? 200 : 503, {
      status: report.ready ? 'ready' : 'not ready',
      ...(local ? { stores: report.stores } : {}),
    });
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

  private startTimers(): ReturnType<typeof setInterval>[] {
    const { keepAliveMs, sessionIdleTimeoutMs } = this.options;
    const timers: ReturnType<typeof setInterval>[] = [];
    if (keepAliveMs > 0) timers.push(setInterval(() => this.connections.forEach((c) => c.keepAlive()), keepAliveMs));
    if (this.options.sessions) {
      const sweep = Math.max(1_000, Math.min(60_000, Math.floor(sessionIdleTimeoutMs / 2)));
      timers.push(setInterval(() => this.sessions.sweep(), sweep));
    }
    // Node's timers would keep the process alive; a web runtime's are plain numbers.
    for (const t of timers) (t as { unref?: () => void }).unref?.();
    return timers;
  }
}
