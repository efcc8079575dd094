import { LRUCache } from 'lru-cache';
import type { JsonRpcMessage } from '../../mcp/json-rpc';
import { encodeMessage } from '../../protocol/wire';

/**
 * One stored SSE event. `message` is null for a marker: the priming event that opens a stream, or the
 * end of a request stream (stored after its final response). `eventsAfter` returns markers too: a
 * replay that meets an end marker ends the resumed stream.
 */
export interface StoredEvent {
  readonly id: string;
  readonly message: JsonRpcMessage | null;
}

/**
 * Keeps the SSE events sent on a session's streams so that a client can resume a dropped stream with
 * `Last-Event-ID`. Event ids are unique within the session and name their stream; a replay never
 * crosses into another stream or another session.
 */
export interface EventStore {
  /** Stores an event of `streamId` in `sessionId` and returns its id. */
  storeEvent(sessionId: string, streamId: string, message: JsonRpcMessage | null): Promise<string>;
  /**
   * Optional fast path, used instead of storeEvent when present: the same event, given as the JSON
   * text the transport already made with encodeMessage (so a streamed message is serialized once).
   */
  storeSerialized?(sessionId: string, streamId: string, message: JsonRpcMessage, json: string): Promise<string>;
  /**
   * The stream an event belongs to and the events stored on that stream after it, oldest first;
   * undefined when the id is unknown to this session (or has been evicted).
   */
  eventsAfter(sessionId: string, lastEventId: string): Promise<{ streamId: string; events: StoredEvent[] } | undefined>;
  /** Forgets everything stored for a session (it ended). */
  clearSession(sessionId: string): Promise<void>;
  /**
   * Called by the transport that uses the store with the server log, for faults the store cannot
   * report through a call (a connection dropping in the background).
   */
  /** Resolves when the store can serve (readiness endpoint); rejects with why not. Absent: always ready. */
  ready?(): Promise<void>;
  attachLogger?(logError: (message: string, error?: unknown) => void): void;
}

/**
 * Limits of the in-memory event store. Sizes are bytes of heap: a serialized message takes one byte a
 * character, or two when it has any character above U+00FF (V8 then keeps the whole string in two
 * bytes a character: CJK text, emoji), and each event about 256 bytes more (see OVERHEAD).
 */
export interface InMemoryEventStoreOptions {
  /** Events kept per stream (default 1 000). */
  maxEventsPerStream?: number;
  /** Events kept per session (default 5 000; the stream with the oldest first event goes first). */
  maxEventsPerSession?: number;
  /** Sessions tracked (default 10 000; the least recently written goes first). */
  maxSessions?: number;
  /** Bytes kept for the whole store (default 16 MiB; the least recently written sessions go first). */
  maxBytes?: number;
  /** Bytes kept per session (default 4 MiB; its oldest events go first). */
  maxBytesPerSession?: number;
}

interface Entry {
  readonly id: string;
  readonly seq: number;
  /** The serialized message (null for a priming event). */
  readonly json: string | null;
  /** What the event costs in the heap (see heapBytes). */
  readonly bytes: number;
}

interface SessionLog {
  seq: number;
  /** Per stream, its events in order (ids carry the stream so lookups need no index). */
  streams: Map<string, Entry[]>;
  size: number;
  bytes: number;
}

/**
 * What an event costs in the heap beyond its message's characters: the entry, its id, its slot in its
 * stream's array, the string's header. Measured at 200 to 250 bytes on 64-bit Node, rounded up. (At
 * 64, 6,000 events of 700 characters, under the 5,000 events a session keeps, held 5.2 MiB against a
 * 4 MiB budget.)
 */
const OVERHEAD = 256;
/** A UTF-16 unit V8 cannot keep in a one-byte string (a surrogate of an emoji is one too). */
const TWO_BYTE = /[\u0100-\uffff]/;

/**
 * The heap an event takes: V8 keeps a string in one byte a character when all of them are at most
 * U+00FF, else in two (the test is cheap on a one-byte string: V8 sees the class cannot match it).
 * Counting one unit a character instead let a session of CJK text hold twice its byte budget.
 */
function heapBytes(json: string | null): number {
  if (json === null) return OVERHEAD;
  return OVERHEAD + (TWO_BYTE.test(json) ? 2 * json.length : json.length);
}

/**
 * The default EventStore: in memory, bounded by event counts and by bytes, per stream, per session and
 * for the whole store. Within a session the oldest events are evicted first; past the store's bounds
 * the least recently written sessions go. A resume after an evicted event is refused as for an unknown
 * id (never replayed with a gap).
 */
export class InMemoryEventStore implements EventStore {
  /** Sessions, least recently written first, each weighing its events. */
  private readonly sessions: LRUCache<string, SessionLog>;
  private readonly limits: Required<InMemoryEventStoreOptions>;
  /** A session never holds more than the whole store may: the store makes room by taking other sessions. */
  private readonly maxBytesPerSession: number;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.limits = {
      maxEventsPerStream: options.maxEventsPerStream ?? 1_000,
      maxEventsPerSession: options.maxEventsPerSession ?? 5_000,
      maxSessions: options.maxSessions ?? 10_000,
      maxBytes: options.maxBytes ?? 16 * 1024 * 1024,
      maxBytesPerSession: options.maxBytesPerSession ?? 4 * 1024 * 1024,
    };
    this.maxBytesPerSession = Math.min(this.limits.maxBytesPerSession, this.limits.maxBytes);
    // maxSessions is kept in store(), not as lru-cache's `max`: that allocates its slots up front (240 KiB for 10,000).
    this.sessions = new LRUCache({
      maxSize: this.limits.maxBytes,
      // At least 1 (lru-cache's least): a session whose every event was evicted keeps its sequence, so ids are not reused.
      sizeCalculation: (log) => Math.max(1, log.bytes),
    });
  }

  /** Bytes of heap held now (serialized messages, one or two bytes a character, plus a fixed overhead per event). */
  get size(): number {
    return this.sessions.calculatedSize;
  }

  async storeEvent(sessionId: string, streamId: string, message: JsonRpcMessage | null): Promise<string> {
    return this.store(sessionId, streamId, message === null ? null : encodeMessage(message));
  }

  async storeSerialized(sessionId: string, streamId: string, _message: JsonRpcMessage, json: string): Promise<string> {
    return this.store(sessionId, streamId, json);
  }

  private store(sessionId: string, streamId: string, json: string | null): string {
    let log = this.sessions.peek(sessionId);
    if (!log) {
      if (this.sessions.size >= this.limits.maxSessions) this.sessions.pop();
      log = { seq: 0, streams: new Map(), size: 0, bytes: 0 };
    }
    const seq = ++log.seq;
    const id = `${streamId}.${seq}`;
    const entry: Entry = { id, seq, json, bytes: heapBytes(json) };
    let events = log.streams.get(streamId);
    if (!events) log.streams.set(streamId, (events = []));
    events.push(entry);
    this.account(log, 1, entry.bytes);
    if (events.length > this.limits.maxEventsPerStream) this.removeHead(log, streamId, events);
    if (log.size > this.limits.maxEventsPerSession) this.evictOldestStream(log);
    while (log.bytes > this.maxBytesPerSession && this.evictOldestEvent(log));
    // Set again at its new weight: the most recently written, which the store-wide bounds take last.
    this.sessions.set(sessionId, log);
    return id;
  }

  async eventsAfter(sessionId: string, lastEventId: string): Promise<{ streamId: string; events: StoredEvent[] } | undefined> {
    const dot = lastEventId.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const streamId = lastEventId.slice(0, dot);
    // A peek: a replay does not make a session recently written.
    const events = this.sessions.peek(sessionId)?.streams.get(streamId);
    const index = events?.findIndex((e) => e.id === lastEventId) ?? -1;
    if (!events || index < 0) return undefined;
    const after: StoredEvent[] = [];
    for (const e of events.slice(index + 1))
      after.push({ id: e.id, message: e.json === null ? null : (JSON.parse(e.json) as JsonRpcMessage) });
    return { streamId, events: after };
  }

  /** Readiness: memory is always there. */
  async ready(): Promise<void> {}

  async clearSession(sessionId: string): Promise<void> {
    this.sessions.delete(sessionId);
  }

  private account(log: SessionLog, events: number, bytes: number): void {
    log.size += events;
    log.bytes += bytes;
  }

  private removeHead(log: SessionLog, streamId: string, events: Entry[]): void {
    const head = events.shift()!;
    this.account(log, -1, -head.bytes);
    if (events.length === 0) log.streams.delete(streamId);
  }

  /** Drops the session's oldest event (the smallest sequence number among the stream heads); false when empty. */
  private evictOldestEvent(log: SessionLog): boolean {
    let oldest: { streamId: string; events: Entry[] } | undefined;
    for (const [streamId, events] of log.streams) {
      if (!oldest || events[0].seq < oldest.events[0].seq) oldest = { streamId, events };
    }
    if (!oldest) return false;
    this.removeHead(log, oldest.streamId, oldest.events);
    return true;
  }

  /** Drops the whole of the stream with the oldest first event: finished request streams go first. */
  private evictOldestStream(log: SessionLog): void {
    const first = log.streams.keys().next().value;
    if (first === undefined) return;
    const events = log.streams.get(first)!;
    this.account(log, -events.length, -events.reduce((sum, e) => sum + e.bytes, 0));
    log.streams.delete(first);
  }
}
