import type { Invocation } from './middleware';

/**
 * Whose calls share a budget (a rate limit, a concurrency limit, a cache entry): `'caller'` (the
 * authenticated principal; an anonymous caller by the application's `policies.anonymousKey`, by default
 * its address), `'everyone'` (one budget for the handler), or a function naming the budget (undefined:
 * the caller's).
 */
export type PolicyKey = 'caller' | 'everyone' | ((call: Invocation) => string | undefined);

/** What a policy does when its store cannot be reached: run the call unguarded, or refuse it. */
export type StoreFailure = 'open' | 'closed';

/**
 * At most `limit` calls per `windowMs`, as a token bucket (GCRA): `limit` calls may come at once, and
 * the budget refills evenly over the window. Several limits may apply (10 a second and 1,000 a day).
 */
export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  /** Whose calls share the budget (default 'caller'). */
  per?: PolicyKey;
  /** Include `limit` and `remaining` in refusals and their headers (default true). */
  disclose?: boolean;
  /** Default 'open': a store outage lets calls through (logged) rather than refusing everyone. */
  onStoreError?: StoreFailure;
}

/**
 * A call with the same idempotency key runs once per caller: a retry while it runs waits for its result,
 * a retry after it gets the stored result, and the same key with other arguments is refused (-32602).
 */
export interface IdempotencyOptions {
  /** How long a result is kept for retries (default 24 h). */
  ttlMs?: number;
  /** A result larger than this (bytes of JSON) is not kept: a retry then runs again (default 1 MiB). */
  maxBytes?: number;
  /**
   * A call without a key in `_meta` is keyed by its arguments (canonical JSON, hashed) when true;
   * otherwise (the default) such a call runs unguarded.
   */
  keyFromArguments?: boolean;
  /** How long a call may run before a retry may run it again (its instance died): default 5 min. */
  runningMs?: number;
  /** Default 'closed': a store outage refuses keyed calls rather than risk running them twice. */
  onStoreError?: StoreFailure;
}

/**
 * Results cached for `ttlMs`, per caller unless `scope` is 'public' (one entry for everyone), and the
 * 2026-07-28 cache hints (`ttlMs`, `cacheScope`) set to match. Errors are never cached. Cleared when the
 * resource is updated (`notifyResourceUpdated`) or its list changes.
 */
export interface CacheOptions {
  ttlMs: number;
  scope?: 'private' | 'public';
  /** A result larger than this (bytes of JSON) is not cached (default 1 MiB). */
  maxBytes?: number;
  /** Default 'open': a store outage is a cache miss. */
  onStoreError?: StoreFailure;
}

/**
 * At most `max` calls of the handler at once, per caller or for everyone; the next `queue` wait (up to
 * `queueTimeoutMs`) and the rest are refused as rate limited.
 */
export interface ConcurrencyOptions {
  max: number;
  /** Whose calls share the limit (default 'everyone'). */
  per?: PolicyKey;
  /** Calls that may wait for a free slot, on each instance (default 0: refuse at once). */
  queue?: number;
  /** How long a queued call waits before it is refused (default 30 s). */
  queueTimeoutMs?: number;
  /** How long a slot is held at most, should its instance die (default: the handler's timeout, else 10 min). */
  leaseMs?: number;
  /** Default 'open'. */
  onStoreError?: StoreFailure;
}

/** The policies of one handler: set by `@RateLimit`, `@Idempotent`, `@Cache`, `@Timeout`, `@Concurrency` or `policies` options. */
export interface HandlerPolicies {
  rateLimit?: RateLimitOptions | readonly RateLimitOptions[];
  idempotent?: IdempotencyOptions;
  cache?: CacheOptions;
  /** Milliseconds a call may run: then its `ctx.signal` is aborted and it is answered with an error. */
  timeoutMs?: number;
  concurrency?: ConcurrencyOptions;
}

/** Where a client puts a call's idempotency key: `params._meta["mcpkit.dev/idempotency-key"]`, 1-255 characters. */
export const IDEMPOTENCY_KEY_META = 'mcpkit.dev/idempotency-key';
