import type { JsonRpcMessage } from '../mcp/json-rpc';
import type { EventStore, StoredEvent } from '../transports/http/event-store';
import { encodeMessage } from '../protocol/wire';
import { hashTag } from './redis-keys';
import { connect, guarded, type RedisClient, type RedisConnection, redisSpanAttributes, whenReady } from './redis-connection';

export interface RedisEventStoreOptions {
  keyPrefix?: string;
  /** Events kept per stream (default 1 000; the oldest go first). */
  maxEventsPerStream?: number;
  /** How long a session's events are kept after the last one, in ms (default one hour). */
  ttlMs?: number;
  /** Told of connection errors (default: the server log of the transport using the store, at most once per 10 s). */
  onError?: (error: Error) => void;
}

const STORE = `
local n = redis.call('INCR', KEYS[1])
local id = ARGV[1] .. '.' .. n
redis.call('RPUSH', KEYS[2], id .. '\\n' .. ARGV[2])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[3]), -1)
redis.call('SADD', KEYS[3], ARGV[1])
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[4]) end
return id`;

type Commands = RedisClient & { mcpStoreEvent(...args: (string | number)[]): Promise<string> };

/**
 * An EventStore on Redis, so that a stream dropped on one instance can be resumed through another.
 * Each stream is a capped list of `id\njson` entries; ids are `<stream>.<n>` with n counted per session.
 * A session's keys share its hash tag (one slot in a Redis Cluster), so that storing an event and
 * clearing the session are one step each; different sessions spread over the masters.
 */
export class RedisEventStore implements EventStore {
  private readonly redis: Commands;
  private readonly owned: boolean;
  private readonly prefix: string;
  private logError?: (message: string, error?: unknown) => void;
  private lastLogged = 0;

  constructor(
    connection: RedisConnection,
    private readonly options: RedisEventStoreOptions = {},
  ) {
    const { redis, owned } = connect(connection, options.onError ?? ((error) => this.report(error)));
    this.redis = redis as Commands;
    this.owned = owned;
    this.prefix = options.keyPrefix ?? 'mcpkit:';
    this.redis.defineCommand('mcpStoreEvent', { numberOfKeys: 3, lua: STORE });
  }

  storeEvent(sessionId: string, streamId: string, message: JsonRpcMessage | null): Promise<string> {
    return this.store(sessionId, streamId, message === null ? '' : encodeMessage(message));
  }

  storeSerialized(sessionId: string, streamId: string, _message: JsonRpcMessage, json: string): Promise<string> {
    return this.store(sessionId, streamId, json);
  }

  private store(sessionId: string, streamId: string, json: string): Promise<string> {
    return guarded('The event store', this.redis, () => {
      const k = this.keys(sessionId);
      return this.redis.mcpStoreEvent(
        k.seq,
        k.stream(streamId),
        k.streams,
        streamId,
        json,
        this.options.maxEventsPerStream ?? 1_000,
        this.options.ttlMs ?? 3_600_000,
      );
    });
  }

  eventsAfter(sessionId: string, lastEventId: string): Promise<{ streamId: string; events: StoredEvent[] } | undefined> {
    return guarded('The event store', this.redis, async () => {
      const dot = lastEventId.lastIndexOf('.');
      if (dot <= 0) return undefined;
      const streamId = lastEventId.slice(0, dot);
      const entries = await this.redis.lrange(this.keys(sessionId).stream(streamId), 0, -1);
      const index = entries.findIndex((e) => e.startsWith(`${lastEventId}\n`));
      if (index < 0) return undefined;
      const events: StoredEvent[] = [];
      for (const entry of entries.slice(index + 1)) {
        const nl = entry.indexOf('\n');
        const json = entry.slice(nl + 1);
        events.push({ id: entry.slice(0, nl), message: json ? (JSON.parse(json) as JsonRpcMessage) : null });
      }
      return { streamId, events };
    });
  }

  clearSession(sessionId: string): Promise<void> {
    return guarded('The event store', this.redis, async () => {
      const k = this.keys(sessionId);
      const streams = await this.redis.smembers(k.streams);
      await this.redis.del(k.seq, k.streams, ...streams.map((s) => k.stream(s)));
    });
  }

  attachLogger(logError: (message: string, error?: unknown) => void): void {
    this.logError ??= logError;
  }

  /** Readiness: the connection is up (waiting a moment while it connects) and the Redis server answers PING. */
  async ready(): Promise<void> {
    await whenReady(this.redis);
    await this.redis.ping();
  }

  /** Attributes of the span around an operation (telemetry 'full'). */
  spanAttributes(): Record<string, string> {
    return redisSpanAttributes();
  }

  async close(): Promise<void> {
    if (this.owned) this.redis.disconnect();
  }

  /** The default onError: a reconnecting client repeats its error every few hundred ms, so repeats within 10 s are not logged. */
  private report(error: Error): void {
    const now = Date.now();
    if (!this.logError || now - this.lastLogged < 10_000) return;
    this.lastLogged = now;
    this.logError('Redis connection error in the event store (repeats within 10 s are not logged)', error);
  }

  private keys(sessionId: string) {
    const base = `${this.prefix}ev:${hashTag(sessionId)}:${sessionId}`;
    return { seq: `${base}:seq`, streams: `${base}:streams`, stream: (streamId: string) => `${base}:s:${streamId}` };
  }
}
