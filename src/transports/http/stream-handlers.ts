import type { HttpExchange } from './http-exchange';
import { fail, SSE_ANSWER } from './http-replies';
import type { ResolvedHttpOptions } from './http-options';
import { type HttpSession, STANDALONE_STREAM } from './http-session';
import type { RequestGuards } from './request-guards';
import type { SessionDirectory } from './session-directory';
import { findSession } from './session-lookup';
import type { Negotiation } from '../../http/negotiation';

const SSE_ONLY = [SSE_ANSWER];

/** GET (the standalone stream, or a resume with Last-Event-ID) and DELETE (end a session) on the MCP endpoint. */
export class StreamHandlers {
  constructor(
    private readonly options: ResolvedHttpOptions,
    private readonly sessions: SessionDirectory,
    private readonly guards: RequestGuards,
    private readonly negotiation: Negotiation,
  ) {}

  async get(exchange: HttpExchange): Promise<void> {
    if (!this.options.enableGetStream) {
      exchange.setHeader('Allow', 'POST, DELETE');
      return fail(exchange, 405, -32000, 'Method not allowed: this server offers no standalone SSE stream');
    }
    if (!this.negotiation.accepts(exchange.header('accept'), SSE_ONLY))
      return fail(exchange, 406, -32000, 'Not Acceptable: Accept must list text/event-stream');
    const principal = await this.guards.authenticate(exchange);
    if (!principal) return;
    const http = await findSession(exchange, this.sessions, principal.auth);
    if (!http) return;
    http.lastActivity = Date.now();
    const lastEventId = exchange.header('last-event-id');
    if (lastEventId) return this.resume(exchange, http, lastEventId);
    if (http.standaloneConnected) return fail(exchange, 409, -32000, 'Conflict: this session already has a standalone SSE stream');
    await http.standalone.open(exchange);
  }

  async delete(exchange: HttpExchange): Promise<void> {
    if (!this.options.sessions) {
      exchange.setHeader('Allow', 'POST');
      return fail(exchange, 405, -32000, 'Method not allowed: this server keeps no sessions');
    }
    const principal = await this.guards.authenticate(exchange);
    if (!principal) return;
    const http = await findSession(exchange, this.sessions, principal.auth);
    if (!http) return;
    await this.sessions.terminate(http, true);
    exchange.reply(200);
  }

  /** Replays a stream after `lastEventId`, then carries it on wherever it lives (or ends it when it ended). */
  private async resume(exchange: HttpExchange, http: HttpSession, lastEventId: string): Promise<void> {
    const store = this.options.eventStore!;
    const found = await store.eventsAfter(http.id!, lastEventId);
    if (!found) return fail(exchange, 400, -32000, 'Bad Request: unknown Last-Event-ID for this session');
    const channel = found.streamId === STANDALONE_STREAM ? http.standalone : http.stream(found.streamId);
    if (channel) {
      await channel.resume(exchange, async () => (await store.eventsAfter(http.id!, lastEventId))?.events ?? []);
      return;
    }
    // The stream lives on another instance: replay, then follow it there until it ends.
    if (this.sessions.cluster) return this.sessions.cluster.follow(http, found.streamId, lastEventId, exchange, store);
    // The request stream already finished: replay what it sent after that event, then end.
    const ended = http.finishedStream(found.streamId);
    await ended.resume(exchange, async () => found.events);
  }
}
