import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { ErrorCode, errorResponse, isRequest, JsonRpcMessage, JsonRpcRequest } from '../../mcp/json-rpc';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../mcp/mcp-types';
import type { TransportExtra } from '../../protocol/request-scope';
import { checkMessage, encodeMessage } from '../../protocol/wire';
import { BodyTooLargeError, readBody } from './body';
import { InMemoryEventStore } from './event-store';
import { HostGuard } from './host-guard';
import { HttpOptions, ResolvedHttpOptions, resolveHttpOptions } from './http-options';
import type { HttpSession } from './http-session';
import { SessionDirectory, SessionFactory } from './session-directory';
import { McpError } from '../../mcp/mcp.error';
import type { SseConnection } from './sse-stream';
import type { ChannelContext } from './stream-channel';
import type { HttpMiddleware, RequestListener } from './http-handler.types';
import { loadKoa } from './koa-loader';
import { accepted, accepts, applyCors, fail, preflight, reply } from './koa-replies';
import { authenticate, findSession, resumeStream } from './http-requests';

export type { SessionFactory } from './session-directory';
export type { HttpMiddleware, RequestListener } from './http-handler.types';

type Ctx = Koa.ParameterizedContext;

const ALLOW = 'GET, POST, DELETE';

/**
 * The Streamable HTTP transport (MCP 2025-11-25) on Koa: one endpoint for POST, GET and DELETE,
 * JSON or SSE answers, sessions, resumable streams, and the safety checks of the spec.
 */
export class StreamableHttpTransport {
  readonly options: ResolvedHttpOptions;
  private readonly koa: Koa;
  private readonly sessions: SessionDirectory;
  private readonly connections = new Set<SseConnection>();
  private readonly guard: HostGuard;
  private server?: Server;
  private timers: NodeJS.Timeout[] = [];
  private closing = false;

  constructor(factory: SessionFactory, options: HttpOptions = {}) {
    this.options = resolveHttpOptions(options, () => new InMemoryEventStore());
    this.guard = new HostGuard(this.options.allowedHosts, this.options.allowedOrigins, options.port || undefined);
    this.sessions = new SessionDirectory(factory, this.options, (id) => this.channelContext(id));
    this.koa = new (loadKoa().Koa)();
    this.koa.use(this.koaMiddleware());
    this.startTimers();
  }

  /** A Koa middleware serving the MCP endpoint (and health path); mount it in your own Koa app. */
  middleware(): HttpMiddleware {
    return this.koaMiddleware() as HttpMiddleware;
  }

  private koaMiddleware(): Koa.Middleware {
    const router = new (loadKoa().Router)();
    const { path, healthPath } = this.options;
    router.post(path, (ctx) => this.guarded(ctx, () => this.post(ctx)));
    router.get(path, (ctx) => this.guarded(ctx, () => this.get(ctx)));
    router.delete(path, (ctx) => this.guarded(ctx, () => this.delete(ctx)));
    router.options(path, (ctx) => preflight(ctx, this.options.cors, ALLOW));
    router.all(path, (ctx) => {
      ctx.set('Allow', ALLOW);
      fail(ctx, 405, -32000, 'Method not allowed');
    });
    if (healthPath) router.get(healthPath, (ctx) => void (ctx.body = { status: 'ok', sessions: this.sessions.size }));
    return router.routes() as unknown as Koa.Middleware;
  }

  /** A Node request listener (for http.createServer or supertest). */
  callback(): RequestListener {
    return this.koa.callback();
  }

  /** Starts a standalone server; resolves with the bound address. */
  async listen(): Promise<{ host: string; port: number; url: string }> {
    const server = createServer(this.callback());
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    this.guard.setPort(port);
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    return { host: this.options.host, port, url: `http://${host}:${port}${this.options.path}` };
  }

  /** Answers new requests with 503 and stops accepting connections; requests in flight go on. */
  stopAccepting(): void {
    this.closing = true;
    this.server?.close();
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Stops accepting, ends every stream and session, and closes the server. */
  async close(): Promise<void> {
    this.closing = true;
    for (const t of this.timers) clearInterval(t);
    this.server?.close();
    await this.sessions.closeAll();
    for (const c of [...this.connections]) c.end();
    this.server?.closeAllConnections();
  }

  private async guarded(ctx: Ctx, handle: () => Promise<void>): Promise<void> {
    if (this.options.cors) applyCors(ctx, this.options.cors);
    if (this.closing) return fail(ctx, 503, -32000, 'Server is shutting down');
    if (this.options.dnsRebindingProtection) {
      const problem = this.guard.check(ctx.get('host') || undefined, ctx.get('origin') || undefined);
      if (problem) return fail(ctx, 403, -32000, `Forbidden: ${problem}`);
    }
    const version = ctx.get('mcp-protocol-version');
    if (version && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return fail(ctx, 400, -32000, `Bad Request: unsupported MCP-Protocol-Version ${version} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
    }
    await handle();
  }

  private async post(ctx: Ctx): Promise<void> {
    if (!accepts(ctx, 'application/json') || !accepts(ctx, 'text/event-stream')) {
      return fail(ctx, 406, -32000, 'Not Acceptable: Accept must list application/json and text/event-stream');
    }
    if (!ctx.is('application/json')) return fail(ctx, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    const principal = await authenticate(ctx, this.options.authenticate);
    if (!principal) return;
    const { auth } = principal;
    let raw: Buffer;
    try {
      raw = await readBody(ctx.req, this.options.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return fail(ctx, 413, -32000, `Payload Too Large: the limit is ${this.options.maxBodyBytes} bytes`);
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      return fail(ctx, 400, ErrorCode.ParseError, 'Parse error: invalid JSON');
    }
    const checked = checkMessage(parsed);
    if (!checked.ok) return reply(ctx, 400, checked.error);
    const message = checked.message;
    const extra: TransportExtra = { headers: ctx.req.headers, auth };
    const isInitialize = isRequest(message) && message.method === 'initialize';

    if (!this.options.sessions) return this.serveStateless(ctx, message, extra);

    let http: HttpSession;
    if (isInitialize) {
      if (this.sessions.size >= this.options.maxSessions) return fail(ctx, 503, -32000, 'Service Unavailable: too many sessions');
      http = this.sessions.create(auth?.subject);
    } else {
      const found = await findSession(ctx, this.sessions, auth);
      if (!found) return;
      http = found;
    }
    http.lastActivity = Date.now();
    if (!isRequest(message)) {
      await http.session.receive(message, extra);
      await this.sessions.cluster?.forward(http, message);
      return accepted(ctx);
    }
    // A new shared session is saved before its id reaches the client, so any instance knows it next.
    await this.answer(ctx, http, message, extra, isInitialize ? () => this.sessions.register(http) : undefined);
  }

  /**
   * Answers one request: JSON when nothing else was sent first, else an SSE stream. Resolves once the
   * HTTP answer has started, with a promise of the request being completely answered.
   */
  private async answer(
    ctx: Ctx,
    http: HttpSession,
    request: JsonRpcRequest,
    extra: TransportExtra,
    beforeReply?: () => Promise<void>,
  ): Promise<{ finished: Promise<void> }> {
    if (http.id) ctx.set('Mcp-Session-Id', http.id);
    const handle = async () => {
      const response = await http.session.handleRequest(request, extra);
      try {
        await beforeReply?.();
      } catch (error) {
        // The session could not be shared (storage down): it does not exist, and the client is told why.
        this.sessions.discard(http);
        ctx.remove('Mcp-Session-Id');
        const e = error instanceof McpError ? error : new McpError(ErrorCode.InternalError, 'Internal error');
        return errorResponse(request.id, e.code, e.message);
      }
      return response;
    };
    if (this.options.responseMode === 'json') {
      this.replyJson(ctx, await handle());
      return { finished: Promise.resolve() };
    }
    const channel = http.openRequest(request.id, ctx.res);
    extra.closeStream = () => void channel.closeConnection();
    if (this.options.responseMode === 'sse') void channel.startStream();
    const done = handle();
    const first = await Promise.race([done.then((response) => ({ response })), channel.upgrade.then(() => undefined)]);
    if (first && channel.state === 'pending') {
      http.closeRequest(request.id, channel);
      this.replyJson(ctx, first.response);
      return { finished: Promise.resolve() };
    }
    ctx.respond = false;
    const finished = done.then(async (response) => {
      await channel.finish(response);
      http.closeRequest(request.id, channel);
      http.lastActivity = Date.now();
    });
    return { finished };
  }

  private replyJson(ctx: Ctx, response: JsonRpcMessage | undefined): void {
    if (!response) {
      ctx.status = 204; // the client cancelled the request: there is nothing to answer
      return;
    }
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = encodeMessage(response);
  }

  private async serveStateless(ctx: Ctx, message: JsonRpcMessage, extra: TransportExtra): Promise<void> {
    // Without the header and without a session there is no other way to know: the spec says assume 2025-03-26.
    const http = this.sessions.ephemeral(extra.auth?.subject, ctx.get('mcp-protocol-version') || '2025-03-26');
    if (!isRequest(message)) {
      await http.session.receive(message, extra);
      http.session.close();
      return accepted(ctx);
    }
    const { finished } = await this.answer(ctx, http, message, extra);
    void finished.finally(() => http.session.close());
  }

  private async get(ctx: Ctx): Promise<void> {
    if (!this.options.enableGetStream) {
      ctx.set('Allow', 'POST, DELETE');
      return fail(ctx, 405, -32000, 'Method not allowed: this server offers no standalone SSE stream');
    }
    if (!accepts(ctx, 'text/event-stream')) return fail(ctx, 406, -32000, 'Not Acceptable: Accept must list text/event-stream');
    const principal = await authenticate(ctx, this.options.authenticate);
    if (!principal) return;
    const { auth } = principal;
    const http = await findSession(ctx, this.sessions, auth);
    if (!http) return;
    http.lastActivity = Date.now();
    const lastEventId = ctx.get('last-event-id');
    if (lastEventId) return resumeStream(ctx, http, lastEventId, this.options.eventStore!, this.sessions.cluster);
    if (http.standaloneConnected) return fail(ctx, 409, -32000, 'Conflict: this session already has a standalone SSE stream');
    ctx.respond = false;
    await http.standalone.open(ctx.res);
  }

  private async delete(ctx: Ctx): Promise<void> {
    if (!this.options.sessions) {
      ctx.set('Allow', 'POST');
      return fail(ctx, 405, -32000, 'Method not allowed: this server keeps no sessions');
    }
    const principal = await authenticate(ctx, this.options.authenticate);
    if (!principal) return;
    const { auth } = principal;
    const http = await findSession(ctx, this.sessions, auth);
    if (!http) return;
    await this.sessions.terminate(http, true);
    ctx.status = 200;
  }

  private channelContext(sessionId: string | undefined): ChannelContext {
    const headers: Record<string, string> = sessionId ? { 'Mcp-Session-Id': sessionId } : {};
    const cluster = sessionId ? this.sessions?.cluster : undefined;
    return {
      store: sessionId && this.options.eventStore ? { sessionId, events: this.options.eventStore } : undefined,
      retryMs: this.options.retryMs,
      headers,
      track: (connection, open) => (open ? this.connections.add(connection) : this.connections.delete(connection)),
      publish: cluster && ((streamId, eventId, message) => cluster.publish(sessionId!, streamId, eventId, message)),
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
