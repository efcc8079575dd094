/**
 * Where the OAuth proxy keeps its state: registered clients, pending authorizations, one-time codes,
 * refresh tokens, grants and the upstream tokens. Values are opaque strings (JSON); every entry
 * expires after its ttl. Share one store between the instances of a deployment (RedisOAuthProxyStore).
 */
export interface OAuthProxyStore {
  /** Stores `value` under `key`, replacing what was there, for `ttlMs` milliseconds. */
  put(key: string, value: string, ttlMs: number): Promise<void>;
  /** The value under `key`, or undefined when absent or expired. */
  get(key: string): Promise<string | undefined>;
  /** Reads and deletes in one atomic step: of two concurrent takes of a key, only one gets the value. */
  take(key: string): Promise<string | undefined>;
  delete(key: string): Promise<void>;
}
