import { randomUUID } from 'node:crypto';
import type { CacheLookup, IdempotencyClaim, PolicyStore, RateDecision } from '../contracts/policy-store';
import { connect, guarded, type RedisClient, type RedisConnection } from './redis-connection';
import { hashTag } from './redis-keys';
import { RedisWaiters } from './redis-waiters';
import { ACQUIRE, CLAIM, CONSUME, NEXT_LAPSE, RELEASE, SETTLE, TAG_TOKEN } from './policy-store.scripts';

export interface RedisPolicyStoreOptions {
  /** Prefix of every key and channel (default `mcpkit:`), so that deployments can share one Redis. Without braces. */
  keyPrefix?: string;
  /** Connection errors (they are also thrown to callers as StorageUnavailableError). */
  onError?: (error: Error) => void;
  /** How often a waiter (an idempotent retry, a queued call) reads again although no message woke it, in ms (default 5000). */
  recheckMs?: number;
}

type Commands = RedisClient & {
  mcpConsume(key: string, intervalMs: number, windowMs: number): Promise<[number, number, string]>;
  mcpClaim(key: string, fingerprint: string, runningMs: number, token: string): Promise<[string, string?]>;
  mcpSettle(key: string, keep: '0' | '1', value: string, ttlMs: number, channel: string, token: string): Promise<number>;
  mcpTagToken(key: string, token: string, ttlMs: number): Promise<string>;
  mcpAcquire(key: string, max: number, leaseMs: number, permit: string): Promise<number>;
  mcpRelease(key: string, permit: string, channel: string): Promise<number>;
  mcpNextLapse(key: string, max: number): Promise<number>;
};

/** How long a cache tag's token lives unread: an expired one is made anew, which only makes its entries stale. */
const TAG_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The call policies' state on Redis, shared by every instance: token buckets, idempotency records,
 * cached results and concurrency slots. Each operation is one Lua script on one key, named with its
 * own hash tag, so that on a Cluster keys spread over the masters and no script crosses slots; the
 * channels that wake waiters are script arguments. Cached values carry the tokens of their tags as
 * read before the call ran (one small key per tag, in its own slot); invalidating a tag replaces its
 * token. Redis bounds the memory (`maxmemory`); each policy bounds the size of one value.
 */
export class RedisPolicyStore implements PolicyStore {
  private readonly redis: Commands;
  private readonly owned: boolean;
  private readonly prefix: string;
  private readonly waiters: RedisWaiters;

  constructor(connection: RedisConnection, options: RedisPolicyStoreOptions = {}) {
    const onError = options.onError ?? (() => undefined);
    const { redis, owned } = connect(connection, onError);
    this.redis = redis as Commands;
    this.owned = owned;
    this.prefix = options.keyPrefix ?? 'mcpkit:';
    this.redis.defineCommand('mcpConsume', { numberOfKeys: 1, lua: CONSUME });
    this.redis.defineCommand('mcpClaim', { numberOfKeys: 1, lua: CLAIM });
    this.redis.defineCommand('mcpSettle', { numberOfKeys: 1, lua: SETTLE });
    this.redis.defineCommand('mcpTagToken', { numberOfKeys: 1, lua: TAG_TOKEN });
    this.redis.defineCommand('mcpAcquire', { numberOfKeys: 1, lua: ACQUIRE });
    this.redis.defineCommand('mcpRelease', { numberOfKeys: 1, lua: RELEASE });
    this.redis.defineCommand('mcpNextLapse', { numberOfKeys: 1, lua: NEXT_LAPSE });
    this.waiters = new RedisWaiters(this.redis, onError, options.recheckMs);
  }

  consume(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    return this.call(async () => {
      const [allowed, remaining, retryAfter] = await this.redis.mcpConsume(this.key(key), windowMs / limit, windowMs);
      return { allowed: allowed === 1, remaining, retryAfterMs: Math.ceil(Number(retryAfter)) };
    });
  }

  claim(key: string, fingerprint: string, runningMs: number): Promise<IdempotencyClaim> {
    return this.call(async () => {
      const token = randomUUID();
      const [status, value] = await this.redis.mcpClaim(this.key(key), fingerprint, Math.ceil(runningMs), token);
      if (status === 'done') return { status, value: value ?? '' };
      if (status === 'claimed') return { status, token };
      return { status: status as 'running' | 'conflict' };
    });
  }

  settle(key: string, token: string, value: string | undefined, ttlMs: number): Promise<void> {
    return this.call(async () => {
      await this.redis.mcpSettle(this.key(key), value === undefined ? '0' : '1', value ?? '', Math.ceil(ttlMs), this.channel(key), token);
    });
  }

  waitSettled(key: string, signal: AbortSignal): Promise<void> {
    const record = this.key(key);
    return this.call(() =>
      this.waiters.wait(this.channel(key), signal, async () => {
        if ((await this.redis.hget(record, 'state')) !== 'running') return 0;
        return Math.max(1, await this.redis.pttl(record));
      }),
    );
  }

  cacheGet(key: string, tags: readonly string[]): Promise<CacheLookup> {
    return this.call(async () => {
      const [entry, ...tokens] = await Promise.all([
        this.redis.get(this.key(key)),
        ...tags.map((tag) => this.redis.mcpTagToken(this.key(`tag:${tag}`), randomUUID(), TAG_TTL_MS)),
      ]);
      const version = tokens.join(' ');
      if (entry === null) return { version };
      const { value, stamp } = JSON.parse(entry) as { value: string; stamp: string };
      return stamp === version ? { value, version } : { version };
    });
  }

  cacheSet(key: string, value: string, ttlMs: number, version: string): Promise<void> {
    return this.call(async () => {
      await this.redis.set(this.key(key), JSON.stringify({ value, stamp: version }), 'PX', Math.ceil(ttlMs));
    });
  }

  invalidate(tag: string): Promise<void> {
    return this.call(async () => {
      await this.redis.set(this.key(`tag:${tag}`), randomUUID(), 'PX', TAG_TTL_MS);
    });
  }

  acquire(key: string, max: number, leaseMs: number): Promise<string | undefined> {
    return this.call(async () => {
      const permit = randomUUID();
      return (await this.redis.mcpAcquire(this.key(key), max, Math.ceil(leaseMs), permit)) === 1 ? permit : undefined;
    });
  }

  release(key: string, permit: string): Promise<void> {
    return this.call(async () => {
      await this.redis.mcpRelease(this.key(key), permit, this.channel(key));
    });
  }

  waitForRelease(key: string, max: number, signal: AbortSignal): Promise<void> {
    const slots = this.key(key);
    return this.call(() => this.waiters.wait(this.channel(key), signal, () => this.redis.mcpNextLapse(slots, max)));
  }

  async close(): Promise<void> {
    await this.waiters.close();
    if (this.owned) this.redis.disconnect();
  }

  private call<T>(work: () => Promise<T>): Promise<T> {
    return guarded('The policy store', this.redis, work);
  }

  /** A key in a slot of its own (the Cluster hash tag of the key). */
  private key(key: string): string {
    return `${this.prefix}policy:${hashTag(key)}:${key}`;
  }

  private channel(key: string): string {
    return `${this.prefix}policy:${hashTag(key)}`;
  }
}
