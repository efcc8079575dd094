import type { OAuthProxyStore } from '../auth/oauth-proxy/oauth-proxy.store';
import { connect, guarded, type RedisClient, type RedisConnection } from './redis-connection';

export interface RedisOAuthProxyStoreOptions {
  keyPrefix?: string;
  /** Told of connection errors (default: nothing; failed calls still reject and are answered server_error). */
  onError?: (error: Error) => void;
}

/** The OAuth proxy's clients, codes, grants and tokens in Redis, shared by every instance; each key expires with its ttl. */
export class RedisOAuthProxyStore implements OAuthProxyStore {
  private readonly redis: RedisClient;
  private readonly owned: boolean;
  private readonly prefix: string;

  constructor(connection: RedisConnection, options: RedisOAuthProxyStoreOptions = {}) {
    const { redis, owned } = connect(connection, options.onError ?? (() => undefined));
    this.redis = redis;
    this.owned = owned;
    this.prefix = `${options.keyPrefix ?? 'mcpkit:'}oauth:`;
  }

  put(key: string, value: string, ttlMs: number): Promise<void> {
    return guarded('The OAuth store', this.redis, async () => {
      await this.redis.set(this.prefix + key, value, 'PX', Math.max(1, Math.ceil(ttlMs)));
    });
  }

  get(key: string): Promise<string | undefined> {
    return guarded('The OAuth store', this.redis, async () => (await this.redis.get(this.prefix + key)) ?? undefined);
  }

  /** GETDEL: atomic, so a one-time code is redeemed by one request only, whichever instance serves it. */
  take(key: string): Promise<string | undefined> {
    return guarded('The OAuth store', this.redis, async () => (await this.redis.getdel(this.prefix + key)) ?? undefined);
  }

  delete(key: string): Promise<void> {
    return guarded('The OAuth store', this.redis, async () => {
      await this.redis.del(this.prefix + key);
    });
  }

  async close(): Promise<void> {
    if (this.owned) this.redis.disconnect();
  }
}
