import { ErrorCode, errorResponse, type JsonRpcMessage, type RequestId } from '../../mcp/json-rpc';
import { McpError } from '../../mcp/mcp.error';
import { encodeMessage } from '../../protocol/wire';
import type { EventStore } from './event-store';
import type { HttpExchange } from './http-exchange';
import { SseConnection } from './sse-stream';

/** A settled promise, shared: what a stream with nothing queued or awaited hands back. */
const DONE: Promise<void> = Promise.resolve();

export interface ChannelContext {
  /** Event storage for resumption; absent in stateless mode. */
  readonly store?: { sessionId: string; events: EventStore };
  readonly retryMs: number;
  /** Headers sent when a stream starts (session id, CORS...). */
  readonly headers: Record<string, string>;
  /** Told when a connection opens or closes (for keep-alives and shutdown). */
  track(connection: SseConnection, open: boolean): void;
  /**
   * With shared sessions: hands a message to the instance that holds the client's connection;
   * `final` when it is the request's last response (the stream ends there).
   */
  publish?(streamId: string, eventId: string | undefined, message: JsonRpcMessage, final: boolean): Promise<void>;
  /** The server log, told once when a stream breaks (its store or its delivery failed). */
  logError(message: string, error?: unknown): void;
}

/*
 * Where a request stream ends is known from the session, which marks a request's final response
 * (`finish`); the transport never reads result fields. In storage, the end is an event with no
 * message after the last response: the only other such event is the priming one, which opens a
 * stream, so it is never among the events replayed after a Last-Event-ID.
 */

/**
 * One logical SSE stream of a session: a POSTed request's answer, or the standalone GET stream.
 * Messages are stored (when resumable) and written in order through one queue, so a resume
 * (replay, then attach) can never interleave with a send.
 */
export class StreamChannel {
  /** `pending`: a request whose answer may still be plain JSON; `done`: the stream ended for good. */
  state: 'pending' | 'sse' | 'done';
  private connection?: SseConnection;
  /** The queue of this stream's work (see enqueue); made with the first work, as most answers are plain JSON. */
  private tail?: Promise<void>;
  /** Ids written by the last replay, so that the same event arriving live is not written twice. */
  private replayed?: Set<string>;
  /** Set when storing or delivering failed: the connection was ended and later sends are dropped until a new one. */
  private broken = false;

  constructor(
    readonly streamId: string,
    private readonly ctx: ChannelContext,
    /** The POST still waiting for its answer, for request channels. */
    private pendingExchange?: HttpExchange,
    /** The request this stream answers (request channels): a broken stream ends with an error for it. */
    private readonly requestId?: RequestId,
  ) {
    this.state = pendingExchange ? 'pending' : 'sse';
  }

  /** True once a write failed on this stream (see `break`) until a new connection is opened. */
  get failed(): boolean {
    return this.broken;
  }

  get connected(): boolean {
    return this.connection?.isOpen ?? false;
  }

  /** Answers `exchange` with SSE, a priming event first (when resumable), and makes it the live connection. */
  open(exchange: HttpExchange): Promise<void> {
    this.begin(exchange);
    this.broken = false;
    return this.enqueue(async () => {
      const id = await this.store(null);
      if (id !== undefined) this.connection?.prime(id, this.ctx.retryMs);
    });
  }

  /** Turns a pending JSON answer into a stream. */
  startStream(): Promise<void> {
    if (this.state !== 'pending' || !this.pendingExchange) return this.tail ?? DONE;
    const exchange = this.pendingExchange;
    this.pendingExchange = undefined;
    this.state = 'sse';
    return this.open(exchange);
  }

  /**
   * Sends a message (starting the stream if the answer was pending); stored first when resumable.
   * `final` marks the request's last response, for an instance that follows this stream elsewhere.
   */
  send(message: JsonRpcMessage, final = false): Promise<void> {
    // startStream only queues work on this channel, and queued work never rejects (see enqueue).
    if (this.state === 'pending') void this.startStream();
    return this.enqueue(async () => {
      if (this.broken) return;
      const json = encodeMessage(message);
      const id = await this.store(message, json);
      if (this.connection?.isOpen) this.connection.sendSerialized(json, id);
      else if (this.ctx.publish) await this.ctx.publish(this.streamId, id, message, final);
    });
  }

  /** Writes a message another instance produced (and stored) for this stream's client. */
  deliverRemote(eventId: string | undefined, message: JsonRpcMessage, final: boolean): Promise<void> {
    return this.enqueue(async () => {
      if (eventId !== undefined && this.replayed?.has(eventId)) return;
      this.connection?.send(message, eventId);
      if (final) {
        this.state = 'done';
        this.connection?.end();
      }
    });
  }

  /** Sends the final response and ends the stream for good (marking the end in storage when resumable). */
  async finish(message?: JsonRpcMessage): Promise<void> {
    if (message) await this.send(message, true);
    await this.enqueue(async () => {
      this.state = 'done';
      if (message && !this.broken) await this.store(null);
      this.connection?.end();
    });
  }

  /** Ends the connection, not the stream: the client reconnects with Last-Event-ID (SEP-1699 polling). */
  closeConnection(): Promise<void> {
    // As in send: the queued priming cannot reject.
    if (this.state === 'pending') void this.startStream();
    return this.enqueue(async () => this.connection?.end());
  }

  /**
   * Resumes on a new connection: replays what was stored after `lastEventId`, then carries on live
   * (or ends at once when the stream already finished).
   */
  resume(exchange: HttpExchange, events: () => Promise<{ id: string; message: JsonRpcMessage | null }[]>): Promise<void> {
    return this.enqueue(async () => {
      this.connection?.end();
      this.begin(exchange);
      this.broken = false;
      const missed = await events();
      this.replayed = new Set(missed.map((e) => e.id));
      for (const e of missed) {
        // An event with no message after a Last-Event-ID is the end of a request stream (see above).
        if (!e.message) {
          if (this.streamId !== 'g') this.state = 'done';
          continue;
        }
        this.connection!.send(e.message, e.id);
      }
      if (this.state === 'done') this.connection!.end();
    });
  }

  private begin(exchange: HttpExchange): void {
    const sink = SseConnection.begin(exchange, this.ctx.headers);
    const connection = new SseConnection(sink, () => this.ctx.track(connection, false));
    this.connection = connection;
    this.ctx.track(connection, true);
  }

  /** Stores an outbound event when the stream is resumable; a failure names the event store. */
  private async store(message: JsonRpcMessage | null, json?: string): Promise<string | undefined> {
    const store = this.ctx.store;
    if (!store) return undefined;
    const { sessionId, events } = store;
    try {
      if (message !== null && json !== undefined && events.storeSerialized)
        return await events.storeSerialized(sessionId, this.streamId, message, json);
      return await events.storeEvent(sessionId, this.streamId, message);
    } catch (error) {
      throw new StreamFault(error instanceof McpError ? error.message : 'The event store is unavailable', error);
    }
  }

  /**
   * Queues work behind everything queued before. The queue never rejects: a failure breaks the stream
   * (see `break`), so callers may drop the promise and a store fault never escapes as an unhandled rejection.
   */
  private enqueue(work: () => Promise<void>): Promise<void> {
    this.tail = (this.tail ?? DONE).then(work).catch((error: unknown) => {
      try {
        this.break(error);
      } catch {
        // Only a throwing logger gets here; the queue must stay usable and never reject.
      }
    });
    return this.tail;
  }

  /**
   * A write failed: logs it once, ends a request's stream with a JSON-RPC error for that request
   * (unstored: the store may be what failed), and closes the connection. The client of a standalone
   * stream reconnects; a request stream is over.
   */
  private break(error: unknown): void {
    if (this.broken) return;
    this.broken = true;
    const fault = error instanceof StreamFault ? error : undefined;
    const message = fault?.message ?? (error instanceof McpError ? error.message : 'Internal error');
    const connection = this.connection;
    // After the final response (a failed end marker), there is nothing left to tell the client.
    if (this.requestId !== undefined && this.state !== 'done') {
      this.state = 'done';
      if (connection?.isOpen) connection.send(errorResponse(this.requestId, ErrorCode.InternalError, message));
    }
    connection?.end();
    this.ctx.logError(
      `SSE stream ${this.streamId}${this.ctx.store ? ` of session ${this.ctx.store.sessionId}` : ''} ended: ${message}`,
      fault?.cause ?? error,
    );
  }
}

/** Storing an event failed; the message is what the client is told. */
class StreamFault extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'StreamFault';
  }
}
