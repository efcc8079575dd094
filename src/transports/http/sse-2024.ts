import { ownerOf } from '../../auth/principal';
import { randomBytes } from 'node:crypto';
import type { Connection } from '../../protocol/connection';
import type { TransportExtra } from '../../protocol/request-scope';
import type { HttpExchange } from './http-exchange';
import { accepted, fail } from './http-replies';
import type { ResolvedHttpOptions } from './http-options';
import { readMessage } from './read-message';
import type { RequestGuards } from './request-guards';
import type { Negotiation } from '../../http/negotiation';
import type { SessionFactory } from './session-directory';
import { SseConnection } from './sse-stream';

/** One client of the HTTP+SSE transport: its stream carries every message the session sends. */
interface Sse2024Session {
  readonly owner: string | undefined;
  readonly stream: SseConnection;
  readonly session: Connection;
}

/** What the endpoint needs from the transport that hosts it. */
export interface Sse2024Host {
  readonly factory: SessionFactory;
  readonly guards: RequestGuards;
  readonly negotiation: Negotiation;
  /** Told when a stream opens or closes (keep-alives). */
  track(connection: SseConnection, open: boolean): void;
  /** The number of Streamable HTTP sessions, which count toward `maxSessions` with these. */
  otherSessions(): number;
}

/**
 * The deprecated HTTP+SSE transport of protocol 2024-11-05: a GET opens a stream that names, in
 * its first (`endpoint`) event, the URL where the client POSTs its messages; every answer and
 * notification goes down that one stream. The stream is the session: closing it ends the session.
 * Sessions live in this instance only.
 */
export class Sse2024Endpoint {
  private readonly sessions = new Map<string, Sse2024Session>();

  constructor(
    private readonly options: ResolvedHttpOptions & { sse2024: { path: string; messagesPath: string } },
    private readonly host: Sse2024Host,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /** GET on the SSE path: a new session and its stream. */
  async open(exchange: HttpExchange): Promise<void> {
    const principal = await this.host.guards.authenticate(exchange);
    if (!principal) return;
    if (this.sessions.size + this.host.otherSessions() >= this.options.maxSessions)
      return fail(exchange, 503, -32000, 'Service Unavailable: too many sessions');
    const id = randomBytes(16).toString('hex');
    const stream = new SseConnection(SseConnection.begin(exchange, {}), () => this.end(id));
    const session = this.host.factory.createSession((message) => stream.send(message), { id, reachable: () => stream.isOpen });
    this.sessions.set(id, { owner: principal.auth && ownerOf(principal.auth), stream, session });
    this.host.track(stream, true);
    stream.endpoint(`${this.options.sse2024.messagesPath}?sessionId=${id}`);
  }

  /** POST on the messages path: one client message for the session its query names, answered 202. */
  async post(exchange: HttpExchange): Promise<void> {
    if (!exchange.hasBody || this.host.negotiation.mediaType(exchange.header('content-type')) !== 'application/json')
      return fail(exchange, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    const principal = await this.host.guards.authenticate(exchange);
    if (!principal) return;
    const id = exchange.query('sessionId');
    if (typeof id !== 'string' || !id) return fail(exchange, 400, -32000, 'Bad Request: the sessionId query parameter is required');
    const sse = this.sessions.get(id);
    // A session opened by another principal is reported as missing, not as forbidden.
    if (!sse || sse.session.closed || sse.owner !== (principal.auth && ownerOf(principal.auth)))
      return fail(exchange, 404, -32001, 'Session not found');
    const message = await readMessage(exchange, this.options);
    if (!message) return;
    const extra: TransportExtra = { headers: exchange.headers, auth: principal.auth, network: exchange.network };
    accepted(exchange);
    // The answer goes down the stream, after this POST was accepted; a request may run for long.
    sse.session.receive(message, extra).catch((e) => this.host.factory.logError('An HTTP+SSE message failed', e));
  }

  /** Ends every stream and its session (shutdown). */
  closeAll(): void {
    for (const sse of [...this.sessions.values()]) sse.stream.end();
  }

  /** The stream closed (either side): the session ends, and its requests in flight are cancelled. */
  private end(id: string): void {
    const sse = this.sessions.get(id);
    if (!sse) return;
    this.sessions.delete(id);
    this.host.track(sse.stream, false);
    sse.session.close();
  }
}
