import type { AuthInfo } from '../../context/mcp-context';
import { ErrorCode, errorResponse, isRequest, isResponse, JsonRpcMessage, RequestId } from '../../mcp/json-rpc';
import { MODERN_PROTOCOL_VERSIONS, ModernErrorCode, supportedVersions } from '../../mcp/eras';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../mcp/mcp-types';
import { echo } from '../../protocol/wire';
import { checkModernHeaders, isModernPost, modernStatus } from './modern-headers';
import { McpError } from '../../mcp/mcp.error';
import { ownerOf } from '../../auth/principal';
import type { TransportExtra } from '../../protocol/request-scope';
import { accepted, accepts, Ctx, fail, networkOf, replyMessage } from './http-replies';
import type { ResolvedHttpOptions } from './http-options';
import type { HttpSession } from './http-session';
import { readMessage } from './read-message';
import { answerRequest } from './request-answer';
import type { RequestGuards } from './request-guards';
import type { SessionDirectory, SessionFactory } from './session-directory';
import { findSession } from './session-lookup';

/** POST on the MCP endpoint: one client message, in a session or (stateless) on its own. */
export class PostHandler {
  constructor(
    private readonly options: ResolvedHttpOptions,
    private readonly sessions: SessionDirectory,
    private readonly guards: RequestGuards,
    private readonly logError: (message: string, error?: unknown) => void,
    private readonly modern: SessionFactory['modern'],
  ) {}

  async handle(ctx: Ctx): Promise<void> {
    if (!accepts(ctx, 'application/json') || !accepts(ctx, 'text/event-stream')) {
      return fail(ctx, 406, -32000, 'Not Acceptable: Accept must list application/json and text/event-stream');
    }
    if (!ctx.is('application/json')) return fail(ctx, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    const principal = await this.guards.authenticate(ctx);
    if (!principal) return;
    const message = await readMessage(ctx, this.options);
    if (!message) return;
    const extra: TransportExtra = { headers: ctx.req.headers, auth: principal.auth, network: networkOf(ctx) };
    const support = this.modern?.support ?? 'legacy';
    if (isModernPost(message, ctx.get('mcp-protocol-version') || undefined, support)) return this.serveModern(ctx, message, extra);
    const version = ctx.get('mcp-protocol-version');
    if (version && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return this.unsupportedVersion(ctx, version, isRequest(message) ? message.id : null);
    if (!this.options.sessions) return this.serveStateless(ctx, message, extra);
    await this.serveInSession(ctx, message, extra, principal.auth);
  }

  private async serveInSession(ctx: Ctx, message: JsonRpcMessage, extra: TransportExtra, auth: AuthInfo | undefined): Promise<void> {
    // From here on, errors name the request they answer.
    const id: RequestId | null = isRequest(message) ? message.id : null;
    const isInitialize = isRequest(message) && message.method === 'initialize';
    let http: HttpSession;
    if (isInitialize) {
      if (this.sessions.size >= this.options.maxSessions) return fail(ctx, 503, -32000, 'Service Unavailable: too many sessions', id);
      http = this.sessions.create(auth && ownerOf(auth));
    } else {
      const found = await findSession(ctx, this.sessions, auth, id);
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
    await answerRequest(ctx, http, message, extra, {
      responseMode: this.options.responseMode,
      logError: this.logError,
      refusal: (scopes, description) => this.guards.refusal(extra.auth, scopes, description),
      beforeReply: isInitialize ? () => this.sessions.register(http) : undefined,
      // The session could not be shared (storage down): it does not exist.
      onBeforeReplyFailed: () => this.sessions.discard(http),
    });
  }

  /** A 2026-07-28 request: checked, then served on its own, statelessly; closing its stream cancels it. */
  private async serveModern(ctx: Ctx, message: JsonRpcMessage, extra: TransportExtra): Promise<void> {
    if (!isRequest(message)) {
      if (isResponse(message)) return fail(ctx, 400, ErrorCode.InvalidRequest, 'Bad Request: a 2026-07-28 client sends no responses');
      // A notification (an extension's, a custom one) reaches the application's listeners.
      // The version is the one this request was routed by (the header named it, or its _meta did).
      const version = MODERN_PROTOCOL_VERSIONS.find((v) => v === ctx.get('mcp-protocol-version')) ?? MODERN_PROTOCOL_VERSIONS[0];
      const http = this.sessions.ephemeral(version, 'modern');
      try {
        await http.session.receive(message, extra);
      } finally {
        http.session.close();
      }
      return accepted(ctx);
    }
    const support = this.modern?.support ?? 'legacy';
    const checked = checkModernHeaders(ctx.req.headers, message, support);
    if (checked instanceof McpError) return replyMessage(ctx, 400, errorResponse(message.id, checked.code, checked.message, checked.data));
    if (!this.modern?.knows(message.method)) return replyMessage(ctx, 404, errorResponse(message.id, ErrorCode.MethodNotFound, `Method not found: ${echo(message.method)}`));
    // The session reads the envelope from here rather than again from the body.
    extra.envelope = checked;
    const http = this.sessions.ephemeral(checked.protocolVersion, 'modern');
    const cancel = () => http.session.close();
    ctx.res.once('close', cancel);
    const { finished } = await answerRequest(ctx, http, message, extra, {
      responseMode: this.options.responseMode === 'sse' ? 'sse' : 'auto',
      logError: this.logError,
      refusal: (scopes, description) => this.guards.refusal(extra.auth, scopes, description),
      statusOf: modernStatus,
    });
    // `finished` never rejects (see answerRequest), so this chain cannot either.
    void finished.then(() => {
      ctx.res.off('close', cancel);
      http.session.close();
    });
  }

  /** A legacy request naming a version this server does not serve: 400, with the versions it does. */
  private unsupportedVersion(ctx: Ctx, version: string, id: RequestId | null): void {
    const support = this.modern?.support ?? 'legacy';
    // Only a server that speaks the modern era answers with a modern error (a dual-era client then stays modern).
    if (support === 'legacy') return fail(ctx, 400, -32000, `Bad Request: unsupported MCP-Protocol-Version ${echo(version)} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`, id);
    replyMessage(ctx, 400, errorResponse(id, ModernErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: MCP-Protocol-Version ${echo(version)} is not served here`, { supported: supportedVersions(support), requested: echo(version) }));
  }

  private async serveStateless(ctx: Ctx, message: JsonRpcMessage, extra: TransportExtra): Promise<void> {
    // Without the header and without a session there is no other way to know: the spec says assume 2025-03-26.
    const http = this.sessions.ephemeral(ctx.get('mcp-protocol-version') || '2025-03-26');
    if (!isRequest(message)) {
      await http.session.receive(message, extra);
      http.session.close();
      return accepted(ctx);
    }
    const { finished } = await answerRequest(ctx, http, message, extra, {
      responseMode: this.options.responseMode,
      logError: this.logError,
      refusal: (scopes, description) => this.guards.refusal(extra.auth, scopes, description),
    });
    // `finished` never rejects (see answerRequest), so this chain cannot either.
    void finished.then(() => http.session.close());
  }
}

