import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import type { AuthInfo } from '../../context/mcp-context';
import { ErrorCode, errorResponse, isRequest, JsonRpcMessage, JsonRpcRequest, RequestId } from '../../mcp/json-rpc';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../mcp/mcp-types';
import type { TransportExtra } from '../../protocol/request-scope';
import { checkMessage, encodeMessage } from '../../protocol/wire';
import { BodyTimeoutError, BodyTooLargeError, readBody } from './body';
import { InMemoryEventStore } from './event-store';
import { HostGuard } from './host-guard';
import { HttpOptions, ResolvedHttpOptions, resolveHttpOptions } from './http-options';
import type { HttpSession } from './http-session';
import { STANDALONE_STREAM } from './http-session';
import { SessionDirectory, SessionFactory } from './session-directory';
import { McpError } from '../../mcp/mcp.error';
import type { SseConnection } from './sse-stream';
import type { ChannelContext } from './stream-channel';
import { UnauthorizedError } from './unauthorized.error';

export type { SessionFactory } from './session-directory';

type Ctx = Koa.ParameterizedContext;

const ALLOW = 'GET, POST, DELETE';

/**
 * The Streamable HTTP transport (MCP 2025-11-25) on Koa: one endpoint for POST, GET and DELETE,
 * JSON or SSE answers, sessions, resumable streams, and the safety checks of the spec.
 */
export class StreamableHttpTransport {
  readonly options: ResolvedHttpOptions;
  readonly koa: Koa;
  private readonly sessions: SessionDirectory;
  private readonly connections = new Set<SseConnection>();
  private readonly guard: HostGuard;
  private server?: Server;
  private timers: NodeJS.Timeout[] = [];
  private closing = false;

  constructor(
    private readonly factory: SessionFactory,
    options: HttpOptions = {},
  ) {
    this.options = resolveHttpOptions(options, () => new InMemoryEventStore());
    this.options.eventStore?.attachLogger?.((message, error) => factory.logError(message, error));
    this.guard = new HostGuard(this.options.allowedHosts, this.options.allowedOrigins, options.port || undefined);
    this.sessions = new SessionDirectory(factory, this.options, (id) => this.channelContext(id));
    this.koa = new Koa();
    this.koa.use(this.middleware());
    this.startTimers();
  }

  /** A Koa middleware serving the MCP endpoint (and health path); mount it in your own Koa app. */
  middleware(): Koa.Middleware {
    const router = new Router();
    const { path, healthPath } = this.options;
    router.post(path, (ctx) => this.guarded(ctx, () => this.post(ctx)));
    router.get(path, (ctx) => this.guarded(ctx, () => this.get(ctx)));
    router.delete(path, (ctx) => this.guarded(ctx, () => this.delete(ctx)));
    router.options(path, (ctx) => this.preflight(ctx));
    router.all(path, (ctx) => {
      ctx.set('Allow', ALLOW);
      this.fail(ctx, 405, -32000, 'Method not allowed');
    });
    if (healthPath) router.get(healthPath, (ctx) => this.health(ctx));
    return router.routes() as unknown as Koa.Middleware;
  }

  /** A Node request listener (for http.createServer or supertest). */
  callback(): ReturnType<Koa['callback']> {
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

  /** The health endpoint, behind the same Host/Origin check as the MCP path (it tells the session count). */
  private health(ctx: Ctx): void {
    if (this.hostRefused(ctx)) return;
    ctx.body = { status: 'ok', sessions: this.sessions.size };
  }

  /** True after answering 403 when DNS-rebinding protection refuses the request's Host or Origin. */
  private hostRefused(ctx: Ctx): boolean {
    if (!this.options.dnsRebindingProtection) return false;
    const problem = this.guard.check(ctx.get('host') || undefined, ctx.get('origin') || undefined);
    if (problem) this.fail(ctx, 403, -32000, `Forbidden: ${problem}`);
    return problem !== undefined;
  }

  private async guarded(ctx: Ctx, handle: () => Promise<void>): Promise<void> {
    if (this.options.cors) this.applyCors(ctx);
    if (this.closing) return this.fail(ctx, 503, -32000, 'Server is shutting down');
    if (this.hostRefused(ctx)) return;
    const version = ctx.get('mcp-protocol-version');
    if (version && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return this.fail(ctx, 400, -32000, `Bad Request: unsupported MCP-Protocol-Version ${version} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
    }
    try {
      await handle();
    } catch (error) {
      this.unexpected(ctx, error);
    }
  }

  /** A fault nothing closer handled: logged, and answered with a JSON-RPC error (never Koa's text 500). */
  private unexpected(ctx: Ctx, error: unknown): void {
    this.factory.logError(`${ctx.method} ${this.options.path} failed`, error);
    if (ctx.respond === false || ctx.headerSent) {
      if (!ctx.res.writableEnded) ctx.res.end();
      return;
    }
    const e = error instanceof McpError ? error : new McpError(ErrorCode.InternalError, 'Internal error');
    this.fail(ctx, 500, e.code, e.message);
  }

  private async post(ctx: Ctx): Promise<void> {
    if (!accepts(ctx, 'application/json') || !accepts(ctx, 'text/event-stream')) {
      return this.fail(ctx, 406, -32000, 'Not Acceptable: Accept must list application/json and text/event-stream');
    }
    if (!ctx.is('application/json')) return this.fail(ctx, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    const principal = await this.authenticate(ctx);
    if (!principal) return;
    const { auth } = principal;
    let raw: Buffer;
    try {
      raw = await readBody(ctx.req, this.options.maxBodyBytes, this.options.bodyTimeoutMs);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return this.fail(ctx, 413, -32000, `Payload Too Large: the limit is ${this.options.maxBodyBytes} bytes`);
      if (error instanceof BodyTimeoutError) {
        // The rest of the body may still come: this connection cannot carry another request.
        ctx.set('Connection', 'close');
        return this.fail(ctx, 408, -32000, `Request Timeout: the body did not arrive within ${this.options.bodyTimeoutMs} ms`);
      }
      if (ctx.req.destroyed) return; // the client went away mid-body: nobody to answer, nothing wrong here
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      return this.fail(ctx, 400, ErrorCode.ParseError, 'Parse error: invalid JSON');
    }
    const checked = checkMessage(parsed);
    if (!checked.ok) return this.reply(ctx, 400, checked.error);
    const message = checked.message;
    // From here on, errors name the request they answer.
    const id = isRequest(message) ? message.id : null;
    const extra: TransportExtra = { headers: ctx.req.headers, auth };
    const isInitialize = isRequest(message) && message.method === 'initialize';

    if (!this.options.sessions) return this.serveStateless(ctx, message, extra);
    await this.serveInSession(ctx, message, extra, auth, isInitialize, id);
  }

  private async serveInSession(ctx: Ctx, message: JsonRpcMessage, extra: TransportExtra, auth: AuthInfo | undefined, isInitialize: boolean, id: RequestId | null): Promise<void> {
    let http: HttpSession;
    if (isInitialize) {
      if (this.sessions.size >= this.options.maxSessions) return this.fail(ctx, 503, -32000, 'Service Unavailable: too many sessions', id);
      http = this.sessions.create(auth?.subject);
    } else {
      const found = await this.findSession(ctx, auth, id);
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
    // The request goes on after the HTTP answer starts; its completion never rejects, so it is left to run.
    await this.answer(ctx, http, message, extra, isInitialize ? () => this.sessions.register(http) : undefined);
  }

  /**
   * Answers one request: JSON when nothing else was sent first, else an SSE stream. Resolves once the
   * HTTP answer has started, with a promise of the request being completely answered (which never
   * rejects: a fault ends the request with a JSON-RPC error and is logged).
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
      let response: JsonRpcMessage | undefined;
      try {
        response = await http.session.handleRequest(request, extra);
      } catch (error) {
        this.factory.logError(`Unhandled error answering ${request.method}`, error);
        return errorResponse(request.id, ErrorCode.InternalError, 'Internal error');
      }
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
    // Channel work never rejects (a fault breaks the stream and is logged there): nothing to await.
    extra.closeStream = () => void channel.closeConnection();
    if (this.options.responseMode === 'sse') void channel.startStream();
    const done = handle(); // never rejects: every fault becomes an error response above
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
    const http = this.sessions.ephemeral(extra.auth?.subject);
    // Without the header and without a session there is no other way to know: the spec says assume 2025-03-26.
    http.session.protocolVersion = ctx.get('mcp-protocol-version') || '2025-03-26';
    if (!isRequest(message)) {
      await http.session.receive(message, extra);
      http.session.close();
      return accepted(ctx);
    }
    const { finished } = await this.answer(ctx, http, message, extra);
    // `finished` never rejects (see answer), so this chain cannot either.
    void finished.then(() => http.session.close());
  }

  private async get(ctx: Ctx): Promise<void> {
    if (!this.options.enableGetStream) {
      ctx.set('Allow', 'POST, DELETE');
      return this.fail(ctx, 405, -32000, 'Method not allowed: this server offers no standalone SSE stream');
    }
    if (!accepts(ctx, 'text/event-stream')) return this.fail(ctx, 406, -32000, 'Not Acceptable: Accept must list text/event-stream');
    const principal = await this.authenticate(ctx);
    if (!principal) return;
    const { auth } = principal;
    const http = await this.findSession(ctx, auth);
    if (!http) return;
    http.lastActivity = Date.now();
    const lastEventId = ctx.get('last-event-id');
    const store = this.options.eventStore!;
    if (lastEventId) {
      const found = await store.eventsAfter(http.id!, lastEventId);
      if (!found) return this.fail(ctx, 400, -32000, 'Bad Request: unknown Last-Event-ID for this session');
      const channel = found.streamId === STANDALONE_STREAM ? http.standalone : http.streams.get(found.streamId);
      ctx.respond = false;
      if (channel) {
        await channel.resume(ctx.res, async () => (await store.eventsAfter(http.id!, lastEventId))?.events ?? []);
        return;
      }
      // The stream lives on another instance: replay, then follow it there until it ends.
      if (this.sessions.cluster) return this.sessions.cluster.follow(http, found.streamId, lastEventId, ctx.res, store);
      // The request stream already finished: replay what it sent after that event, then end.
      const ended = http.finishedStream(found.streamId);
      await ended.resume(ctx.res, async () => found.events);
      return;
    }
    if (http.standaloneConnected) return this.fail(ctx, 409, -32000, 'Conflict: this session already has a standalone SSE stream');
    ctx.respond = false;
    await http.standalone.open(ctx.res);
  }

  private async delete(ctx: Ctx): Promise<void> {
    if (!this.options.sessions) {
      ctx.set('Allow', 'POST');
      return this.fail(ctx, 405, -32000, 'Method not allowed: this server keeps no sessions');
    }
    const principal = await this.authenticate(ctx);
    if (!principal) return;
    const { auth } = principal;
    const http = await this.findSession(ctx, auth);
    if (!http) return;
    await this.sessions.terminate(http, true);
    ctx.body = null; // an empty body (Koa would otherwise write the status text)
    ctx.status = 200;
  }

  /**
   * Runs the `authenticate` option; resolves undefined after answering 401 when it refuses
   * (UnauthorizedError), or 500 when it fails otherwise (logged: a broken hook is not a bad client).
   */
  private async authenticate(ctx: Ctx): Promise<{ auth: AuthInfo | undefined } | undefined> {
    try {
      return { auth: await this.options.authenticate?.({ headers: ctx.req.headers, method: ctx.method, url: ctx.url }) };
    } catch (error) {
      if (error instanceof UnauthorizedError) {
        if (error.challenge) ctx.set('WWW-Authenticate', error.challenge);
        this.fail(ctx, 401, -32000, error.message);
      } else {
        this.factory.logError('The authenticate hook failed', error);
        this.fail(ctx, 500, ErrorCode.InternalError, 'Internal error');
      }
      return undefined;
    }
  }

  private preflight(ctx: Ctx): void {
    if (this.options.cors) this.applyCors(ctx);
    ctx.set('Allow', ALLOW);
    ctx.status = 204;
  }

  private applyCors(ctx: Ctx): void {
    const { origins } = this.options.cors!;
    const origin = ctx.get('origin');
    if (origins === '*') ctx.set('Access-Control-Allow-Origin', '*');
    else if (origin && origins.includes(origin)) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.vary('Origin');
    } else return;
    ctx.set('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', 'Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID');
    ctx.set('Access-Control-Expose-Headers', 'Mcp-Session-Id, Mcp-Protocol-Version');
  }

  /**
   * The session named by the request, or undefined after answering 400 (no id), 404 (unknown) or 503
   * (store down); `requestId` is the id of the POSTed request the errors answer.
   */
  private async findSession(ctx: Ctx, auth: AuthInfo | undefined, requestId: RequestId | null = null): Promise<HttpSession | undefined> {
    const id = ctx.get('mcp-session-id');
    if (!id) {
      this.fail(ctx, 400, -32000, 'Bad Request: Mcp-Session-Id header is required', requestId);
      return undefined;
    }
    try {
      const http = await this.sessions.find(id, auth?.subject);
      if (!http) this.fail(ctx, 404, -32001, 'Session not found', requestId);
      return http;
    } catch (error) {
      if (!(error instanceof McpError)) throw error;
      this.fail(ctx, 503, error.code, error.message, requestId);
      return undefined;
    }
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

  /** Every JSON body of the MCP path goes through encodeMessage, like SSE events and stdio lines. */
  private reply(ctx: Ctx, status: number, body: JsonRpcMessage): void {
    ctx.status = status;
    ctx.type = 'application/json';
    ctx.body = encodeMessage(body);
  }

  private fail(ctx: Ctx, status: number, code: number, message: string, id: RequestId | null = null): void {
    this.reply(ctx, status, errorResponse(id, code, message));
  }
}

/** 202 Accepted with an empty body (Koa would otherwise write the status text). */
function accepted(ctx: Ctx): void {
  ctx.body = null;
  ctx.status = 202;
}

/** True when the Accept header admits `type` (wildcards included). */
function accepts(ctx: Ctx, type: string): boolean {
  const accept = ctx.get('accept');
  if (!accept) return false;
  const [major] = type.split('/');
  return accept
    .split(',')
    .map((part) => part.split(';')[0].trim().toLowerCase())
    .some((t) => t === type || t === '*/*' || t === `${major}/*`);
}
