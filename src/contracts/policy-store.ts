/** A rate limit's verdict on one call. */
export interface RateDecision {
  readonly allowed: boolean;
  /** Calls left after this one (0 when refused). */
  readonly remaining: number;
  /** When refused: milliseconds until a call is allowed again; 0 otherwise. */
  readonly retryAfterMs: number;
}

/** What became of an idempotency claim. */
export type IdempotencyClaim =
  /** The key is new (or its record expired): the caller runs the call and settles the key with `token`. */
  | { readonly status: 'claimed'; readonly token: string }
  /** Another call with the key is running: wait for it to settle, then claim again. */
  | { readonly status: 'running' }
  /** The call ran: its stored result. */
  | { readonly status: 'done'; readonly value: string }
  /** The key was used with other arguments. */
  | { readonly status: 'conflict' };

/** What the cache holds for a key: the value, if fresh, and the version of its tags as read now. */
export interface CacheLookup {
  readonly value?: string;
  /**
   * The state of the tags when looked up: a value set with it later is stale if a tag was invalidated
   * in between (while the call that made it ran).
   */
  readonly version: string;
}

/**
 * Where call policies keep their state (rate limits, idempotency records, cached results, concurrency
 * slots): in memory by default, Redis for instances that share it. Keys come from mcpkit, values are
 * JSON strings. Every method rejects with StorageUnavailableError when the store cannot be reached.
 * Check an implementation with `policyStoreContract` from `mcpkit/testing`.
 */
export interface PolicyStore {
  /** Takes one call from the token bucket `key` (`limit` per `windowMs`). */
  consume(key: string, limit: number, windowMs: number): Promise<RateDecision>;

  /** Claims `key` for a call with `fingerprint` (its arguments' hash); a claim lapses after `runningMs`. */
  claim(key: string, fingerprint: string, runningMs: number): Promise<IdempotencyClaim>;
  /**
   * Stores the result of a claimed call for `ttlMs` (undefined: drops the claim, so a retry runs again).
   * Only with the claim's `token`: a call that ran past its claim's `runningMs`, while a retry took the
   * key, changes nothing.
   */
  settle(key: string, token: string, value: string | undefined, ttlMs: number): Promise<void>;
  /** Resolves when the call holding `key` settled or its claim lapsed (or soon after: callers claim again). */
  waitSettled(key: string, signal: AbortSignal): Promise<void>;

  /** A cached value, unless it expired or one of `tags` was invalidated after the lookup its version came from. */
  cacheGet(key: string, tags: readonly string[]): Promise<CacheLookup>;
  /** Caches `value` for `ttlMs`, stamped with the `version` of the lookup made before it was computed. */
  cacheSet(key: string, value: string, ttlMs: number, version: string): Promise<void>;
  /** Makes every value cached under `tag` stale. */
  invalidate(tag: string): Promise<void>;

  /** Takes one of `max` slots of `key` for at most `leaseMs`: its permit, or undefined when none is free. */
  acquire(key: string, max: number, leaseMs: number): Promise<string | undefined>;
  release(key: string, permit: string): Promise<void>;
  /** Resolves when one of `max` slots of `key` may be free (at once if one is; or soon after: callers try again). */
  waitForRelease(key: string, max: number, signal: AbortSignal): Promise<void>;

  close?(): Promise<void>;
}
