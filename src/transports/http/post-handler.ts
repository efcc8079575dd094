import type { AuthInfo } from '../../context/mcp-context';
import { ErrorCode, errorResponse, isRequest, type JsonRpcMessage, type JsonRpcRequest, type RequestId } from '../../mcp/json-rpc';
import type { Era } from '../../mcp/eras';
import { echo } from '../../protocol/wire';
import { classifyInbound } from '../../protocol/inbound';
import type { PeerState } from '../../protocol/peer';
import { perRequestStatus } from './per-request-headers';
import { ownerOf } from '../../auth/principal';
import type { HttpExchange } from './http-exchange';
import { accepted, fail, JSON_ANSWER, replyMessage, SSE_ANSWER } from './http-replies';
import type { ResolvedHttpOptions } from './http-options';
import type { HttpSession } from './http-session';
import { readMessage } from './read-message';
import type { Negotiation } from '../../http/negotiation';
import { type AnswerOptions, answerRequest, PostExtra } from './request-answer';
import type { RequestGuards } from './request-guards';
import type { SessionDirectory, SessionFactory } from './session-directory';
import { findSession } from './session-lookup';
import { StatelessExchange, type StatelessServer } from './stateless-exchange';
import type { ChannelContext } from './stream-channel';

/**
 * POST on the MCP endpoint: one client message, in a session or (stateless) on its own. A stateless
 * message makes no session: the engine serves it alone, its answer goes out as a session's would.
 */
export class PostHandler {
  /**
   * How requests of each era are answered, made once (see answerRequest on why no per-request object
   * goes there): a per-request-era answer is JSON unless the application asks for SSE, and its errors
   * carry their own HTTP status.
   */
  private readonly answers: Readonly<Record<Era, AnswerOptions>>;

  constructor(
    private readonly options: ResolvedHttpOptions,
    private readonly sessions: SessionDirectory,
    private readonly guards: RequestGuards,
    logError: (message: string, error?: unknown) => void,
    private readonly perRequest: SessionFactory['perRequest'],
    private readonly stateless: StatelessServer,
    /** The streams of stateless requests: no session id, no event store (they cannot be resumed). */
    private readonly statelessChannels: ChannelContext,
    private readonly negotiation: Negotiation,
  ) {
    const { responseMode } = options;
    const shared = { logError, refusal: guards.refusal.bind(guards) };
    this.answers = {
      handshake: { ...shared, responseMode },
      'per-request': { ...shared, responseMode: responseMode === 'sse' ? 'sse' : 'auto', statusOf: perRequestStatus },
    };
  }

  async handle(exchange: HttpExchange): Promise<void> {
    if (!this.negotiation.accepts(exchange.header('accept'), BOTH_ANSWERS)) {
      return fail(exchange, 406, -32000, 'Not Acceptable: Accept must list application/json and text/event-stream');
    }
    if (!exchange.hasBody || this.negotiation.mediaType(exchange.header('content-type')) !== 'application/json')
      return fail(exchange, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    const principal = await this.guards.authenticate(exchange);
    if (!principal) return;
    const message = await readMessage(exchange, this.options);
    if (!message) return;
    const extra = new PostExtra(exchange.headers, principal.auth, exchange);
    const headers = exchange.headers;
    const inbound = classifyInbound(message, { support: this.perRequest?.support ?? 'handshake', header: (name) => single(headers[name]) });
    if ('reject' in inbound) {
      const e = inbound.reject;
      return replyMessage(exchange, 400, errorResponse(isRequest(message) ? message.id : null, e.code, e.message, e.data));
    }
    if ('notification' in inbound) return this.perRequestNotification(exchange, message, inbound.notification);
    if (inbound.era === 'per-request') return this.servePerRequest(exchange, message as JsonRpcRequest, extra, inbound.peer);
    if (!this.options.sessions) return this.serveStateless(exchange, message, extra);
    await this.serveInSession(exchange, message, extra, principal.auth);
  }

  private async serveInSession(
    exchange: HttpExchange,
    message: JsonRpcMessage,
    extra: PostExtra,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    // From here on, errors name the request they answer.
    const id: RequestId | null = isRequest(message) ? message.id : null;
    const isInitialize = isRequest(message) && message.method === 'initialize';
    let http: HttpSession;
    if (isInitialize) {
      if (this.sessions.size >= this.options.maxSessions) return fail(exchange, 503, -32000, 'Service Unavailable: too many sessions', id);
      http = this.sessions.create(auth && ownerOf(auth));
    } else {
      const found = await findSession(exchange, this.sessions, auth, id);
      if (!found) return;
      http = found;
    }
    http.lastActivity = Date.now();
    if (!isRequest(message)) {
      await http.session.receive(message, extra);
      await this.sessions.cluster?.forward(http, message);
      return accepted(exchange);
    }
    // A new shared session is saved before its id reaches the client, so any instance knows it next.
    // The request goes on after the HTTP answer starts; its completion never rejects, so it is left to run.
    const answer = isInitialize
      ? {
          ...this.answers.handshake,
          beforeReply: () => this.sessions.register(http),
          // The session could not be shared (storage down): it does not exist.
          onBeforeReplyFailed: () => this.sessions.discard(http),
        }
      : this.answers.handshake;
    await answerRequest(exchange, http, message, extra, answer);
  }

  /** A 2026-07-28 notification (an extension's, a custom one): it reaches the application's listeners. */
  private perRequestNotification(exchange: HttpExchange, message: JsonRpcMessage, version: string): void {
    // The classifier names a version only for a notification (a request has its envelope, a response is refused).
    this.stateless.receiveStateless(message, { protocolVersion: version, clientCapabilities: {} });
    accepted(exchange);
  }

  /** A 2026-07-28 request, its headers and envelope checked: served on its own, statelessly; closing its stream cancels it. */
  private async servePerRequest(exchange: HttpExchange, message: JsonRpcRequest, extra: PostExtra, peer: PeerState): Promise<void> {
    if (!this.perRequest?.knows(message.method))
      return replyMessage(exchange, 404, errorResponse(message.id, ErrorCode.MethodNotFound, `Method not found: ${echo(message.method)}`));
    // The engine takes the envelope from here rather than reading it again from the body.
    extra.envelope = peer;
    const served = new StatelessExchange(this.stateless, this.statelessChannels, {
      protocolVersion: peer.protocolVersion,
      clientCapabilities: {},
    });
    // The client leaving cancels the request.
    const unsubscribe = exchange.onClose(() => served.close());
    await this.answer(exchange, served, message, extra, this.answers['per-request'], unsubscribe);
  }

  /** A 2025-11-25 message when the `sessions` option is off: served on its own. */
  private async serveStateless(exchange: HttpExchange, message: JsonRpcMessage, extra: PostExtra): Promise<void> {
    // Without the header and without a session there is no other way to know: the spec says assume 2025-03-26.
    const peer: PeerState = { protocolVersion: exchange.header('mcp-protocol-version') || '2025-03-26', clientCapabilities: {} };
    if (!isRequest(message)) {
      this.stateless.receiveStateless(message, peer);
      return accepted(exchange);
    }
    const served = new StatelessExchange(this.stateless, this.statelessChannels, peer);
    await this.answer(exchange, served, message, extra, this.answers.handshake);
  }

  /**
   * Answers a request served with no session, and closes it once its answer is finished (a stream may
   * go on after the HTTP answer started); `after` runs then too.
   */
  private async answer(
    exchange: HttpExchange,
    served: StatelessExchange,
    message: JsonRpcRequest,
    extra: PostExtra,
    options: AnswerOptions,
    after?: () => void,
  ): Promise<void> {
    let finished: Promise<void>;
    try {
      ({ finished } = await answerRequest(exchange, served, message, extra, options));
    } catch (error) {
      after?.();
      served.close();
      throw error;
    }
    // finished never rejects.
    void finished.then(() => {
      after?.();
      served.close();
    });
  }
}

const BOTH_ANSWERS = [JSON_ANSWER, SSE_ANSWER];

/** A header's value ('' when absent; repeated ones joined as Node joins them). */
function single(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}
