import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/**
 * What the instances of one deployment share to check DPoP proofs (RFC 9449): the proofs already seen,
 * so that a proof replayed on any instance is refused, and the key that signs server nonces, so that a
 * nonce one instance gave is taken by the others. In memory by default; `redisScaleOut` shares one over
 * Redis.
 */
export interface DpopStore {
  /**
   * Records `key` (a digest of a proof's key and `jti`) for `ttlMs`; resolves true the first time, false
   * when it was recorded within that time: the proof is a replay.
   */
  firstUse(key: string, ttlMs: number): Promise<boolean>;
  /** The key server nonces are signed with: the same on every instance and across calls. */
  nonceKey(): Promise<Buffer>;
}

/** Options of InMemoryDpopStore. */
export interface InMemoryDpopStoreOptions {
  /**
   * Bytes the record of seen proofs may hold (default 32 MiB, about 186,000 proofs: 600 a second over
   * the default 310 s window, the proof age plus twice the clock tolerance). Entries leave only once
   * their proof is too old to be accepted: while it is full, new proofs are refused (503), never let in
   * unrecorded, where they could be replayed.
   */
  maxBytes?: number;
}

/** Bytes a seen proof takes: its 43-character key and the cache's slots (177 measured on Node 24). */
const ENTRY_BYTES = 180;

/**
 * The proofs one process has seen, bounded in bytes, each forgotten once its proof is too old to be
 * accepted anyway; and a random nonce key made at start. Right for one instance: behind a load
 * balancer, use the scale-out's store, or a proof could be replayed on another instance.
 */
export class InMemoryDpopStore implements DpopStore {
  private readonly seen: LRUCache<string, true>;
  private readonly maxBytes: number;
  private readonly key = randomBytes(32);

  constructor(options: InMemoryDpopStoreOptions = {}) {
    this.maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
    this.seen = new LRUCache({
      maxSize: this.maxBytes,
      sizeCalculation: () => ENTRY_BYTES,
      perf: { now: () => Date.now() },
      ttlResolution: 0,
    });
  }

  firstUse(key: string, ttlMs: number): Promise<boolean> {
    if (this.seen.has(key)) return Promise.resolve(false);
    // The cache would make room by forgetting the oldest proof, still within its window: a replay.
    if (!this.hasRoom())
      return Promise.reject(
        new Error(`The record of DPoP proofs seen is full (${this.maxBytes} bytes): raise maxBytes, or share a RedisDpopStore`),
      );
    this.seen.set(key, true, { ttl: ttlMs });
    return Promise.resolve(true);
  }

  /** Whether one more proof fits, once the proofs too old to matter are dropped. */
  private hasRoom(): boolean {
    if (this.seen.calculatedSize + ENTRY_BYTES <= this.maxBytes) return true;
    this.seen.purgeStale();
    return this.seen.calculatedSize + ENTRY_BYTES <= this.maxBytes;
  }

  nonceKey(): Promise<Buffer> {
    return Promise.resolve(this.key);
  }
}
