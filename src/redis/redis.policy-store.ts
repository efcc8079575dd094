import { randomUUID } from 'node:crypto';
import type { CacheLookup, IdempotencyClaim, PolicyStore, RateDecision } from '../contracts/policy-store';
import { StorageUnavailableError } from '../tasks/task-store.errors';
import { connect, guarded, NotConnectedError, type RedisClient, type RedisConnection, watchOf } from './redis-connection';
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

/** At most this many writes are owed to Redis while it is away (beyond, a slot lapses with its lease). */
const OWED_MAX = 10_000;
/** At most this many bytes of results are owed; beyond, an owed settle drops its claim (the retry runs again). */
const OWED_BYTES = 16 * 1024 * 1024;

/** A write that must reach Redis, kept while Redis is away. */
interface Owed {
  readonly write: () => Promise<unknown>;
  readonly bytes: number;
}

/**
 * The call policies' state on Redis, shared by every instance: token buckets, idempotency records,
 * cached results and concurrency slots. Each operation is one Lua script on one key, named with its
 * own hash tag, so that on a Cluster keys spread over the masters and no script crosses slots; the
 * channels that wake waiters are script arguments. Cached values carry the tokens of their tags as
 * read before the call ran (one small key per tag, in its own slot); invalidating a tag replaces its
 * token. Redis bounds the memory (`maxmemory`); each policy bounds the size of one value.
 *
 * What ends a call must reach Redis even when Redis is away at that moment: a slot's release and an
 * idempotency record's settlement (its result) are kept, and sent once the connection is ready again,
 * before the calls that waited for it; so are the releases of a slot, or the drop of a claim, whose
 * command may have run although its answer was lost. A call is never refused for a slot whose call
 * has ended, once Redis is back with its data.
 */
export class RedisPolicyStore implements PolicyStore {
  private readonly redis: Commands;
  private readonly owned: boolean;
  private readonly prefix: string;
  private readonly waiters: RedisWaiters;
  private readonly owed = new Map<string, Owed>();
  private owedBytes = 0;
  private readonly stopPaying: () => void;

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
    // A waiter learns of an outage at once: its policy says what to do then (onStoreError).
    this.waiters = new RedisWaiters(this.redis, onError, options.recheckMs, true);
    this.stopPaying = watchOf(this.redis).whenReady(() => this.payOwed());
  }

  consume(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    return this.call(async () => {
      const [allowed, remaining, retryAfter] = await this.redis.mcpConsume(this.key(key), windowMs / limit, windowMs);
      return { allowed: allowed === 1, remaining, retryAfterMs: Math.ceil(Number(retryAfter)) };
    });
  }

  claim(key: string, fingerprint: string, runningMs: number): Promise<IdempotencyClaim> {
    const token = randomUUID();
    return this.call(async (): Promise<IdempotencyClaim> => {
      const [status, value] = await this.redis.mcpClaim(this.key(key), fingerprint, Math.ceil(runningMs), token);
      if (status === 'done') return { status, value: value ?? '' };
      if (status === 'claimed') return { status, token };
      return { status: status as 'running' | 'conflict' };
    }).catch((error: unknown) => this.undoing(error, `settle ${key} ${token}`, () => this.settleWrite(key, token, undefined, 0)));
  }

  settle(key: string, token: string, value: string | undefined, ttlMs: number): Promise<void> {
    return this.owing(
      `settle ${key} ${token}`,
      () => this.settleWrite(key, token, value, ttlMs),
      value?.length ?? 0,
      () => this.settleWrite(key, token, undefined, 0),
    );
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
    const permit = randomUUID();
    return this.call(async () =>
      (await this.redis.mcpAcquire(this.key(key), max, Math.ceil(leaseMs), permit)) === 1 ? permit : undefined,
    ).catch((error: unknown) =>
      this.undoing(error, `release ${key} ${permit}`, () => this.redis.mcpRelease(this.key(key), permit, this.channel(key))),
    );
  }

  release(key: string, permit: string): Promise<void> {
    return this.owing(`release ${key} ${permit}`, () => this.redis.mcpRelease(this.key(key), permit, this.channel(key)));
  }

  waitForRelease(key: string, max: number, signal: AbortSignal): Promise<void> {
    const slots = this.key(key);
    return this.call(() => this.waiters.wait(this.channel(key), signal, () => this.redis.mcpNextLapse(slots, max)));
  }

  async close(): Promise<void> {
    this.stopPaying();
    await this.waiters.close();
    if (this.owned) this.redis.disconnect();
  }

  private call<T>(work: () => Promise<T>): Promise<T> {
    return guarded('The policy store', this.redis, work);
  }

  private settleWrite(key: string, token: string, value: string | undefined, ttlMs: number): Promise<number> {
    return this.redis.mcpSettle(this.key(key), value === undefined ? '0' : '1', value ?? '', Math.ceil(ttlMs), this.channel(key), token);
  }

  /**
   * A write that ends a call: when Redis cannot be reached it is owed (sent once Redis is back) and the
   * caller still learns of the failure. `bytes` counts against OWED_BYTES; `lighter` is owed instead
   * when they would not fit.
   */
  private async owing(id: string, write: () => Promise<unknown>, bytes = 0, lighter?: () => Promise<unknown>): Promise<void> {
    try {
      await this.call(write);
    } catch (error) {
      if (error instanceof StorageUnavailableError) {
        if (this.owedBytes + bytes <= OWED_BYTES) this.owe(id, write, bytes);
        else if (lighter) this.owe(id, lighter, 0);
      }
      throw error;
    }
  }

  /**
   * A call that failed after its command may have been sent (not one refused before sending) may have
   * taken a slot or a claim nobody will end: `undo` is owed, then the failure goes on.
   */
  private undoing(error: unknown, id: string, undo: () => Promise<unknown>): never {
    if (error instanceof StorageUnavailableError && !(error.cause instanceof NotConnectedError)) this.owe(id, undo, 0);
    throw error;
  }

  private owe(id: string, write: () => Promise<unknown>, bytes: number): void {
    if (this.owed.has(id) || this.owed.size >= OWED_MAX) return;
    this.owed.set(id, { write, bytes });
    this.owedBytes += bytes;
  }

  /** Sends every owed write at once (in order, on the connection just ready); what fails stays owed. */
  private payOwed(): void {
    for (const [id, owed] of this.owed)
      owed.write().then(
        () => {
          if (this.owed.delete(id)) this.owedBytes -= owed.bytes;
        },
        () => undefined,
      );
  }

  /** A key in a slot of its own (the Cluster hash tag of the key). */
  private key(key: string): string {
    return `${this.prefix}policy:${hashTag(key)}:${key}`;
  }

  private channel(key: string): string {
    return `${this.prefix}policy:${hashTag(key)}`;
  }
}
