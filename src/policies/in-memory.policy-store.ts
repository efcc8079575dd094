import type { CacheLookup, IdempotencyClaim, PolicyStore, RateDecision } from '../contracts/policy-store';
import { randomUUID } from 'node:crypto';

export interface InMemoryPolicyStoreOptions {
  /**
   * The bytes every entry may take together (keys and values as UTF-16, plus a fixed overhead each):
   * past it the least recently used go first. Default 32 MiB.
   */
  maxBytes?: number;
}

/** An entry's own bytes beyond its key and value: the Map slot and the record object, roughly. */
const OVERHEAD = 96;

type Entry =
  | { kind: 'bucket'; tat: number; expiresAt: number; bytes: number }
  | { kind: 'claim'; fingerprint: string; token: string; value?: string; expiresAt: number; bytes: number }
  | { kind: 'cached'; value: string; version: number; expiresAt: number; bytes: number }
  | { kind: 'generation'; clock: number; expiresAt: number; bytes: number }
  | { kind: 'slots'; permits: Map<string, number>; expiresAt: number; bytes: number };

/**
 * The policies' state in this process (one instance): every entry in one map, least recently used
 * first, bounded in bytes. A flood of distinct keys evicts the oldest entries: a rate limit then starts
 * over for a caller who paused, never holds more than `maxBytes`. Running calls and taken slots are
 * never evicted (they are as many as the calls in flight).
 */
export class InMemoryPolicyStore implements PolicyStore {
  private readonly entries = new Map<string, Entry>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly maxBytes: number;
  private bytes = 0;
  /** The cache's clock: a value is stale when one of its tags was invalidated after the lookup before it. */
  private clock = 0;
  /** The latest clock of an evicted generation: a tag without one is taken as invalidated then. */
  private evictedClock = 0;

  constructor(options: InMemoryPolicyStoreOptions = {}) {
    this.maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  }

  /** The bytes and entries held now. */
  usage(): { bytes: number; entries: number } {
    return { bytes: this.bytes, entries: this.entries.size };
  }

  consume(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    const now = Date.now();
    const interval = windowMs / limit;
    const found = this.live(key, 'bucket');
    const tat = Math.max(found?.tat ?? now, now) + interval;
    const allowAt = tat - windowMs;
    // A microsecond of slack, as the Redis store has: rounding must not refuse the last call of a burst.
    if (allowAt > now + 0.001) return Promise.resolve({ allowed: false, remaining: 0, retryAfterMs: allowAt - now });
    this.put(key, { kind: 'bucket', tat, expiresAt: tat, bytes: 0 });
    return Promise.resolve({ allowed: true, remaining: Math.floor((now + windowMs - tat) / interval + 1e-6), retryAfterMs: 0 });
  }

  claim(key: string, fingerprint: string, runningMs: number): Promise<IdempotencyClaim> {
    const found = this.live(key, 'claim');
    if (!found) {
      const token = randomUUID();
      this.put(key, {
        kind: 'claim',
        fingerprint,
        token,
        expiresAt: Date.now() + runningMs,
        bytes: (fingerprint.length + token.length) * 2,
      });
      return Promise.resolve({ status: 'claimed', token });
    }
    if (found.fingerprint !== fingerprint) return Promise.resolve({ status: 'conflict' });
    return Promise.resolve(found.value === undefined ? { status: 'running' } : { status: 'done', value: found.value });
  }

  settle(key: string, token: string, value: string | undefined, ttlMs: number): Promise<void> {
    const found = this.live(key, 'claim');
    // Only the claim's holder settles it: a call that outlived its claim leaves the next holder's alone.
    const held = found?.token === token && found.value === undefined ? found : undefined;
    if (held && value === undefined) this.remove(key);
    else if (held && value !== undefined)
      this.put(key, {
        kind: 'claim',
        fingerprint: held.fingerprint,
        token,
        value,
        expiresAt: Date.now() + ttlMs,
        bytes: (held.fingerprint.length + value.length) * 2,
      });
    this.wake(key);
    return Promise.resolve();
  }

  waitSettled(key: string, signal: AbortSignal): Promise<void> {
    const found = this.live(key, 'claim');
    if (!found || found.value !== undefined) return Promise.resolve();
    return this.waitOn(key, found.expiresAt - Date.now(), signal);
  }

  cacheGet(key: string, tags: readonly string[]): Promise<CacheLookup> {
    const version = String(this.clock);
    const found = this.live(key, 'cached');
    if (!found) return Promise.resolve({ version });
    if (tags.some((tag) => this.invalidatedAt(tag) > found.version)) {
      this.remove(key);
      return Promise.resolve({ version });
    }
    return Promise.resolve({ value: found.value, version });
  }

  cacheSet(key: string, value: string, ttlMs: number, version: string): Promise<void> {
    this.put(key, { kind: 'cached', value, version: Number(version), expiresAt: Date.now() + ttlMs, bytes: value.length * 2 });
    return Promise.resolve();
  }

  invalidate(tag: string): Promise<void> {
    this.live(`generation:${tag}`, 'generation');
    this.put(`generation:${tag}`, { kind: 'generation', clock: ++this.clock, expiresAt: Infinity, bytes: 0 });
    return Promise.resolve();
  }

  acquire(key: string, max: number, leaseMs: number): Promise<string | undefined> {
    const now = Date.now();
    const slots = this.live(key, 'slots') ?? { kind: 'slots' as const, permits: new Map<string, number>(), expiresAt: 0, bytes: 0 };
    for (const [permit, until] of slots.permits) if (until <= now) slots.permits.delete(permit);
    if (slots.permits.size >= max) return Promise.resolve(undefined);
    const permit = randomUUID();
    slots.permits.set(permit, now + leaseMs);
    this.put(key, { ...slots, expiresAt: Math.max(...slots.permits.values()), bytes: slots.permits.size * 100 });
    return Promise.resolve(permit);
  }

  release(key: string, permit: string): Promise<void> {
    const slots = this.live(key, 'slots');
    if (slots?.permits.delete(permit)) {
      if (slots.permits.size === 0) this.remove(key);
      else this.put(key, { ...slots, bytes: slots.permits.size * 100 });
    }
    this.wake(key);
    return Promise.resolve();
  }

  waitForRelease(key: string, max: number, signal: AbortSignal): Promise<void> {
    const slots = this.live(key, 'slots');
    const now = Date.now();
    if (!slots || [...slots.permits.values()].filter((until) => until > now).length < max) return Promise.resolve();
    return this.waitOn(key, Math.min(...slots.permits.values()) - Date.now(), signal);
  }

  close(): Promise<void> {
    for (const key of [...this.waiters.keys()]) this.wake(key);
    this.entries.clear();
    this.bytes = 0;
    return Promise.resolve();
  }

  /**
   * The entry of `key` if it is of `kind` and has not expired (an expired one is dropped), made the most
   * recently used: a caller refused again and again keeps its bucket.
   */
  private live<K extends Entry['kind']>(key: string, kind: K): Extract<Entry, { kind: K }> | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.kind !== kind) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= Date.now()) {
      this.bytes -= entry.bytes;
      return undefined;
    }
    this.entries.set(key, entry);
    return entry as Extract<Entry, { kind: K }>;
  }

  private invalidatedAt(tag: string): number {
    const generation = this.entries.get(`generation:${tag}`);
    return generation?.kind === 'generation' ? generation.clock : this.evictedClock;
  }

  /**
   * Stores `entry`, then evicts the least recently used past the byte bound. A new key is the most
   * recently used; a key already there keeps its place, which `live` made the most recent when it was read.
   */
  private put(key: string, entry: Entry): void {
    const old = this.entries.get(key);
    if (old) this.bytes -= old.bytes;
    entry.bytes += key.length * 2 + OVERHEAD;
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    if (this.bytes > this.maxBytes) this.evict(key);
  }

  private evict(keep: string): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) return;
      if (key === keep || (entry.expiresAt > now && pinned(entry))) continue;
      if (entry.kind === 'generation') this.evictedClock = Math.max(this.evictedClock, entry.clock);
      this.remove(key);
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
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

/** Entries a running call holds: evicting them would run an idempotent call twice or break a limit. */
function pinned(entry: Entry): boolean {
  return entry.kind === 'slots' || (entry.kind === 'claim' && entry.value === undefined);
}
