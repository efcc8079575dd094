import { randomBytes } from 'node:crypto';
import type { SessionBackplane, SessionEnvelope, SharedSessionState } from '../transports/http/session-backplane';
import {
  connect,
  guarded,
  pubsub,
  type RedisClient,
  type RedisConnection,
  redisSpanAttributes,
  subscriberOf,
  whenReady,
} from './redis-connection';

export interface RedisSessionBackplaneOptions {
  keyPrefix?: string;
  onError?: (error: Error) => void;
}

const MERGE = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local state = cjson.decode(raw)
for k, v in pairs(cjson.decode(ARGV[1])) do state[k] = v end
redis.call('SET', KEYS[1], cjson.encode(state), 'PX', ARGV[2])
return 1`;

/**
 * PUBLISH from a script keyed by the session: on a Cluster a plain PUBLISH goes to any node, and two
 * messages of one session sent through two nodes may reach a subscriber in the other order (an SSE
 * stream followed on another instance would see its events swapped). Keyed, every message of a
 * session leaves from the node of its slot, in the order sent. On one node it is a plain PUBLISH.
 */
const PUBLISH = `return redis.call('PUBLISH', ARGV[1], ARGV[2])`;

/** The Redis command behind each operation, for its span (db.operation.name). */
const COMMANDS: Record<string, string> = {
  save: 'SET',
  load: 'GET',
  update: 'EVALSHA',
  delete: 'DEL',
  publish: 'PUBLISH', // sent from a script (see PUBLISH), still a publish
  subscribe: 'SUBSCRIBE',
};

/** Sessions shared through Redis: state as a JSON value that expires when idle, a pub/sub channel per session. */
export class RedisSessionBackplane implements SessionBackplane {
  private readonly redis: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly owned: boolean;
  private readonly prefix: string;
  private readonly listeners = new Map<string, Set<(e: SessionEnvelope) => void>>();

  constructor(connection: RedisConnection, options: RedisSessionBackplaneOptions = {}) {
    const onError = options.onError ?? (() => undefined);
    const { redis, owned } = connect(connection, onError);
    this.redis = redis;
    this.owned = owned;
    this.prefix = options.keyPrefix ?? 'mcpkit:';
    // Merging in one script keeps concurrent updates from two instances from losing each other.
    this.redis.defineCommand('mcpMergeSession', { numberOfKeys: 1, lua: MERGE });
    this.redis.defineCommand('mcpPublish', { numberOfKeys: 1, lua: PUBLISH });
    // Re-subscribed here on each reconnection, its failure handled (see subscriberOf).
    this.subscriber = subscriberOf(redis);
    this.subscriber.on('error', onError);
    this.subscriber.on('ready', () => {
      const channels = [...this.listeners.keys()];
      // A failure means the connection dropped again: the next 'ready' subscribes once more.
      if (channels.length > 0) pubsub(this.subscriber, 'subscribe', channels).catch(() => undefined);
    });
    this.subscriber.on('message', (channel: string, payload: string) => {
      const set = this.listeners.get(channel);
      if (!set) return;
      // A throw here would be an uncaught exception (an event listener): report it instead.
      try {
        const envelope = JSON.parse(payload) as SessionEnvelope;
        for (const listener of [...set]) listener(envelope);
      } catch (error) {
        onError(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** A random 32-byte secret stored once under `name` (the first instance to ask creates it). */
  sharedSecret(name: string): Promise<Buffer> {
    return guarded('The session store', this.redis, async () => {
      const key = `${this.prefix}${name}`;
      await this.redis.set(key, randomBytes(32).toString('base64'), 'NX');
      const stored = await this.redis.get(key);
      if (!stored) throw new Error(`${key} vanished after it was set`);
      return Buffer.from(stored, 'base64');
    });
  }

  save(sessionId: string, state: SharedSessionState, ttlMs: number): Promise<void> {
    return guarded(
      'The session store',
      this.redis,
      async () => void (await this.redis.set(this.key(sessionId), JSON.stringify(state), 'PX', ttlMs)),
    );
  }

  load(sessionId: string, ttlMs: number): Promise<SharedSessionState | undefined> {
    return guarded('The session store', this.redis, async () => {
      const raw = await this.redis.get(this.key(sessionId));
      if (raw === null) return undefined;
      // Best effort, not awaited: the state was read; a failed refresh means the connection dropped (the
      // 'error' listener reports that) and the next use of the session refreshes it again.
      void this.redis.pexpire(this.key(sessionId), ttlMs).catch(() => undefined);
      const state = JSON.parse(raw) as SharedSessionState;
      // Lua's JSON encoder writes an empty array as {}.
      if (!Array.isArray(state.subscriptions)) state.subscriptions = [];
      return state;
    });
  }

  update(sessionId: string, patch: Partial<SharedSessionState>, ttlMs: number): Promise<void> {
    return guarded('The session store', this.redis, async () => {
      await (this.redis as RedisClient & { mcpMergeSession(key: string, patch: string, ttl: number): Promise<number> }).mcpMergeSession(
        this.key(sessionId),
        JSON.stringify(patch),
        ttlMs,
      );
    });
  }

  delete(sessionId: string): Promise<void> {
    return guarded('The session store', this.redis, async () => void (await this.redis.del(this.key(sessionId))));
  }

  publish(sessionId: string, envelope: SessionEnvelope): Promise<void> {
    return guarded(
      'The session store',
      this.redis,
      async () =>
        void (await (this.redis as RedisClient & { mcpPublish(key: string, channel: string, message: string): Promise<number> }).mcpPublish(
          this.key(sessionId),
          this.channel(sessionId),
          JSON.stringify(envelope),
        )),
    );
  }

  subscribe(sessionId: string, listener: (envelope: SessionEnvelope) => void): Promise<() => Promise<void>> {
    return guarded('The session store', this.subscriber, async () => {
      const channel = this.channel(sessionId);
      let set = this.listeners.get(channel);
      if (!set) {
        this.listeners.set(channel, (set = new Set()));
        await whenReady(this.subscriber);
        await pubsub(this.subscriber, 'subscribe', [channel]);
      }
      set.add(listener);
      return async () => {
        set.delete(listener);
        if (set.size === 0 && this.listeners.get(channel) === set) {
          this.listeners.delete(channel);
          // Silent on purpose, as in RedisWaiters: only a lost connection fails it, and a leftover
          // subscription delivers to no listener.
          await pubsub(this.subscriber, 'unsubscribe', [channel]).catch(() => undefined);
        }
      };
    });
  }

  /** Attributes of the span around an operation (telemetry 'full'). */
  spanAttributes(operation: string): Record<string, string> {
    return redisSpanAttributes(COMMANDS[operation]);
  }

  /** Readiness: the connection is up (waiting a moment while it connects) and the Redis server answers PING. */
  async ready(): Promise<void> {
    await whenReady(this.redis);
    await this.redis.ping();
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.subscriber.disconnect();
    if (this.owned) this.redis.disconnect();
  }

  private key(sessionId: string): string {
    return `${this.prefix}s:${sessionId}`;
  }

  private channel(sessionId: string): string {
    return `${this.prefix}sc:${sessionId}`;
  }
}
