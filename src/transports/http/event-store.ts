import type { JsonRpcMessage } from '../../mcp/json-rpc';

/** One stored SSE event. `message` is null for a priming event (it marks a position only). */
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
   * The stream an event belongs to and the events stored on that stream after it, oldest first;
   * undefined when the id is unknown to this session (or has been evicted).
   */
  eventsAfter(sessionId: string, lastEventId: string): Promise<{ streamId: string; events: StoredEvent[] } | undefined>;
  /** Forgets everything stored for a session (it ended). */
  clearSession(sessionId: string): Promise<void>;
}

interface SessionLog {
  seq: number;
  /** Per stream, its events in order (ids carry the stream so lookups need no index). */
  streams: Map<string, StoredEvent[]>;
  size: number;
}

/**
 * The default EventStore: in memory, bounded per stream and per session (oldest events are evicted
 * first), and per process by the number of sessions it tracks.
 */
export class InMemoryEventStore implements EventStore {
  private readonly sessions = new Map<string, SessionLog>();

  constructor(
    private readonly options: { maxEventsPerStream?: number; maxEventsPerSession?: number; maxSessions?: number } = {},
  ) {}

  async storeEvent(sessionId: string, streamId: string, message: JsonRpcMessage | null): Promise<string> {
    let log = this.sessions.get(sessionId);
    if (!log) {
      if (this.sessions.size >= (this.options.maxSessions ?? 10_000)) {
        const oldest = this.sessions.keys().next().value;
        if (oldest !== undefined) this.sessions.delete(oldest);
      }
      log = { seq: 0, streams: new Map(), size: 0 };
      this.sessions.set(sessionId, log);
    }
    const id = `${streamId}.${++log.seq}`;
    let events = log.streams.get(streamId);
    if (!events) log.streams.set(streamId, (events = []));
    events.push({ id, message });
    log.size++;
    if (events.length > (this.options.maxEventsPerStream ?? 1_000)) {
      events.shift();
      log.size--;
    }
    if (log.size > (this.options.maxEventsPerSession ?? 5_000)) this.evictOldestStream(log);
    return id;
  }

  async eventsAfter(sessionId: string, lastEventId: string): Promise<{ streamId: string; events: StoredEvent[] } | undefined> {
    const dot = lastEventId.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const streamId = lastEventId.slice(0, dot);
    const events = this.sessions.get(sessionId)?.streams.get(streamId);
    const index = events?.findIndex((e) => e.id === lastEventId) ?? -1;
    if (!events || index < 0) return undefined;
    return { streamId, events: events.slice(index + 1).filter((e) => e.message !== null) };
  }

  async clearSession(sessionId: string): Promise<void> {
    this.sessions.delete(sessionId);
  }

  /** Drops the whole of the stream with the oldest first event: finished request streams go first. */
  private evictOldestStream(log: SessionLog): void {
    const first = log.streams.keys().next().value;
    if (first === undefined) return;
    log.size -= log.streams.get(first)!.length;
    log.streams.delete(first);
  }
}
