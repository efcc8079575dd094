import { randomBytes } from 'node:crypto';
import type { DpopStore } from '../auth/dpop-store';
import { connect, guarded, type RedisClient, type RedisConnection } from './redis-connection';

export interface RedisDpopStoreOptions {
  keyPrefix?: string;
  onError?: (error: Error) => void;
}

/**
 * DPoP state shared by the instances of a deployment: a proof's `SET NX` with its window as expiry
 * (the first instance to record it wins, every later one sees a replay), and one nonce key created by
 * the first instance that asks. It connects on first use, so a server without DPoP opens no connection.
 */
export class RedisDpopStore implements DpopStore {
  private client?: { redis: RedisClient; owned: boolean };
  private readonly prefix: string;
  private key?: Promise<Buffer>;

  constructor(
    private readonly connection: RedisConnection,
    private readonly options: RedisDpopStoreOptions = {},
  ) {
    this.prefix = options.keyPrefix ?? 'mcpkit:';
  }

  firstUse(key: string, ttlMs: number): Promise<boolean> {
    const redis = this.redis();
    return guarded(
      'The DPoP store',
      redis,
      async () => (await redis.set(`${this.prefix}dpop:${key}`, '1', 'PX', Math.ceil(ttlMs), 'NX')) === 'OK',
    );
  }

  nonceKey(): Promise<Buffer> {
    // Kept once read: it never changes, and a nonce check should not cost a round trip.
    this.key ??= this.readKey().catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key;
  }

  async close(): Promise<void> {
    if (this.client?.owned) this.client.redis.disconnect();
  }

  private readKey(): Promise<Buffer> {
    const redis = this.redis();
    const name = `${this.prefix}dpop-nonce-key`;
    return guarded('The DPoP store', redis, async () => {
      await redis.set(name, randomBytes(32).toString('base64'), 'NX');
      const stored = await redis.get(name);
      if (!stored) throw new Error(`${name} vanished after it was set`);
      return Buffer.from(stored, 'base64');
    });
  }

  private redis(): RedisClient {
    this.client ??= connect(this.connection, this.options.onError ?? (() => undefined));
    return this.client.redis;
  }
}
