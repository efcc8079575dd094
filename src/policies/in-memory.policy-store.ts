import type { CacheLookup, IdempotencyClaim, PolicyStore, RateDecision } from '../contracts/policy-store';
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export interface InMemoryPolicyStoreOptions {
  /**
   * The bytes the entries a running call does not hold may take together (keys and values as UTF-16,
   * plus a fixed overhead each): past it the least recently used go first. Default 32 MiB.
   */
  maxBytes?: number;
}

/** An entry's own bytes beyond its key and value: the cache's slot and the record object, roughly. */
const OVERHEAD = 96;

/** What may be evicted: buckets, results of settled calls, cached values, the clocks of tags. */
type Entry =
  | { kind: 'bucket'; tat: number; bytes: number }
  | { kind: 'claim'; fingerprint: string; token: string; value: string; bytes: number }
  | { kind: 'cached'; value: string; version: number; bytes: number }
  | { kind: 'generation'; clock: number; bytes: number };

/** What a running call holds: evicting it would run an idempotent call twice or break a limit. */
type Held =
  | { kind: 'running'; fingerprint: string; token: string; expiresAt: number; bytes: number }
  | { kind: 'slots'; permits: Map<string, number>; expiresAt: number; bytes: number };

/**
 * The policies' state in this process (one instance). What can be evicted is in one cache, least
 * recently used first, bounded in bytes: a flood of distinct keys evicts the oldest entries, so a rate
 * limit starts over for a caller who paused, and the store never holds more than `maxBytes` of them.
 * Running calls and taken slots are kept apart and never evicted (they are as many as the calls in
 * flight, and each call removes its own when it ends).
 */
export class InMemoryPolicyStore implements PolicyStore {
  private readonly entries: LRUCache<string, Entry>;
  private readonly held = new Map<string, Held>();
  private readonly waiters = new Map<string, Set<() => void>>();
  /** The cache's clock: a value is stale when one of its tags was invalidated after the lookup before it. */
  private clock = 0;
  /** The latest clock of an evicted generation: a tag without one is taken as invalidated then. */
  private evictedClock = 0;

  constructor(options: InMemoryPolicyStoreOptions = {}) {
    this.entries = new LRUCache<string, Entry>({
      maxSize: options.maxBytes ?? 32 * 1024 * 1024,
      sizeCalculation: (entry, key) => entry.bytes + key.length * 2 + OVERHEAD,
      dispose: (entry, _key, reason) => {
        if (reason === 'evict' && entry.kind === 'generation') this.evictedClock = Math.max(this.evictedClock, entry.clock);
      },
      // Leases and windows are times of the wall clock: the global Date, read at each lookup (no timer).
      perf: { now: () => Date.now() },
      ttlResolution: 0,
    });
  }

  /** The bytes and entries held now: the evictable ones (within `maxBytes`) and those of running calls. */
  usage(): { bytes: number; entries: number } {
    let bytes = this.entries.calculatedSize;
    for (const entry of this.held.values()) bytes += entry.bytes;
    return { bytes, entries: this.entries.size + this.held.size };
  }

  consume(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    const now = Date.now();
    const interval = windowMs / limit;
    const found = this.kept(key, 'bucket');
    const tat = Math.max(found?.tat ?? now, now) + interval;
    const allowAt = tat - windowMs;
    // A microsecond of slack, as the Redis store has: rounding must not refuse the last call of a burst.
    if (allowAt > now + 0.001) return Promise.resolve({ allowed: false, remaining: 0, retryAfterMs: allowAt - now });
    this.keep(key, { kind: 'bucket', tat, bytes: 0 }, tat - now);
    return Promise.resolve({ allowed: true, remaining: Math.floor((now + windowMs - tat) / interval + 1e-6), retryAfterMs: 0 });
  }

  claim(key: string, fingerprint: string, runningMs: number): Promise<IdempotencyClaim> {
    const found = this.holding(key, 'running') ?? this.kept(key, 'claim');
    if (!found) {
      const token = randomUUID();
      const bytes = (fingerprint.length + token.length + key.length) * 2 + OVERHEAD;
      this.held.set(key, { kind: 'running', fingerprint, token, expiresAt: Date.now() + runningMs, bytes });
      return Promise.resolve({ status: 'claimed', token });
    }
    if (found.fingerprint !== fingerprint) return Promise.resolve({ status: 'conflict' });
    return Promise.resolve(found.kind === 'running' ? { status: 'running' } : { status: 'done', value: found.value });
  }

  settle(key: string, token: string, value: string | undefined, ttlMs: number): Promise<void> {
    const running = this.holding(key, 'running');
    // Only the claim's holder settles it: a call that outlived its claim leaves the next holder's alone.
    if (running?.token === token) {
      this.held.delete(key);
      if (value !== undefined) {
        const bytes = (running.fingerprint.length + value.length) * 2;
        this.keep(key, { kind: 'claim', fingerprint: running.fingerprint, token, value, bytes }, ttlMs);
      }
    }
    this.wake(key);
    return Promise.resolve();
  }

  waitSettled(key: string, signal: AbortSignal): Promise<void> {
    const running = this.holding(key, 'running');
    if (!running) return Promise.resolve();
    return this.waitOn(key, running.expiresAt - Date.now(), signal);
  }

  cacheGet(key: string, tags: readonly string[]): Promise<CacheLookup> {
    const version = String(this.clock);
    const found = this.kept(key, 'cached');
    if (!found) return Promise.resolve({ version });
    if (tags.some((tag) => this.invalidatedAt(tag) > found.version)) {
      this.entries.delete(key);
      return Promise.resolve({ version });
    }
    return Promise.resolve({ value: found.value, version });
  }

  cacheSet(key: string, value: string, ttlMs: number, version: string): Promise<void> {
    this.keep(key, { kind: 'cached', value, version: Number(version), bytes: value.length * 2 }, ttlMs);
    return Promise.resolve();
  }

  invalidate(tag: string): Promise<void> {
    this.keep(`generation:${tag}`, { kind: 'generation', clock: ++this.clock, bytes: 0 });
    return Promise.resolve();
  }

  acquire(key: string, max: number, leaseMs: number): Promise<string | undefined> {
    const now = Date.now();
    const slots = this.holding(key, 'slots') ?? { kind: 'slots' as const, permits: new Map<string, number>(), expiresAt: 0, bytes: 0 };
    for (const [permit, until] of slots.permits) if (until <= now) slots.permits.delete(permit);
    if (slots.permits.size >= max) return Promise.resolve(undefined);
    const permit = randomUUID();
    slots.permits.set(permit, now + leaseMs);
    slots.expiresAt = Math.max(...slots.permits.values());
    slots.bytes = slots.permits.size * 100 + key.length * 2 + OVERHEAD;
    this.held.set(key, slots);
    return Promise.resolve(permit);
  }

  release(key: string, permit: string): Promise<void> {
    const slots = this.holding(key, 'slots');
    if (slots?.permits.delete(permit)) {
      if (slots.permits.size === 0) this.held.delete(key);
      else slots.bytes -= 100;
    }
    this.wake(key);
    return Promise.resolve();
  }

  /**
   * Resolves once a slot is free by this store's clock (a release, or the first live lease's end), or on
   * abort. A timer may fire a little before the wall clock reaches the lease's end (Node times from the
   * event loop's cached start of turn): the slots are read again then, and the wait goes on if none lapsed.
   */
  async waitForRelease(key: string, max: number, signal: AbortSignal): Promise<void> {
    for (;;) {
      const now = Date.now();
      const live = [...(this.holding(key, 'slots')?.permits.values() ?? [])].filter((until) => until > now);
      if (live.length < max || signal.aborted) return;
      await this.waitOn(key, Math.min(...live) - now, signal);
    }
  }

  close(): Promise<void> {
    for (const key of [...this.waiters.keys()]) this.wake(key);
    this.entries.clear();
    this.held.clear();
    return Promise.resolve();
  }

  /**
   * The evictable entry of `key` if it is of `kind` and fresh (an expired one is dropped), made the most
   * recently used: a caller refused again and again keeps its bucket.
   */
  private kept<K extends Entry['kind']>(key: string, kind: K): Extract<Entry, { kind: K }> | undefined {
    const entry = this.entries.get(key);
    return entry?.kind === kind ? (entry as Extract<Entry, { kind: K }>) : undefined;
  }

  /** Stores an evictable entry for `ttlMs` (no expiry when undefined); a ttl of 0 or less drops the key. */
  private keep(key: string, entry: Entry, ttlMs?: number): void {
    if (ttlMs === undefined) this.entries.set(key, entry);
    else if (ttlMs > 0) this.entries.set(key, entry, { ttl: ttlMs });
    else this.entries.delete(key);
  }

  /** What a running call holds under `key`, if it is of `kind` and has not lapsed (a lapsed one is dropped). */
  private holding<K extends Held['kind']>(key: string, kind: K): Extract<Held, { kind: K }> | undefined {
    const entry = this.held.get(key);
    if (entry?.kind !== kind) return undefined;
    if (entry.expiresAt > Date.now()) return entry as Extract<Held, { kind: K }>;
    this.held.delete(key);
    return undefined;
  }

  private invalidatedAt(tag: string): number {
    // A peek: reading a tag's clock does not keep it.
    const generation = this.entries.peek(`generation:${tag}`);
    return generation?.kind === 'generation' ? generation.clock : this.evictedClock;
  }

  private waitOn(key: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        const set = this.waiters.get(key);
        if (set?.delete(done) && set.size === 0) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, ms));
      signal.addEventListener('abort', done, { once: true });
      let set = this.waiters.get(key);
      if (!set) this.waiters.set(key, (set = new Set()));
      set.add(done);
      if (signal.aborted) done();
    });
  }

  private wake(key: string): void {
    const set = this.waiters.get(key);
    if (!set) return;
    this.waiters.delete(key);
    for (const done of set) done();
  }
}
