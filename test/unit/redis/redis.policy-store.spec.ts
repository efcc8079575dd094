import Redis, { Cluster } from 'ioredis';
import { RedisPolicyStore } from '../../../src/redis';
import { describePolicyStoreContract } from '../../../src/testing';
import { PrivateRedis } from '../../helpers/redis-server';
import { PrivateRedisCluster } from '../../helpers/redis-cluster';
import { waitFor } from '../../helpers/wait-for';

let redis: PrivateRedis;
let cluster: PrivateRedisCluster;
beforeAll(async () => {
  [redis, cluster] = await Promise.all([PrivateRedis.start(), PrivateRedisCluster.start()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([redis?.stop(), cluster?.stop()]);
});

describePolicyStoreContract(
  { describe, it, beforeEach, afterEach },
  'RedisPolicyStore (two connections)',
  async () => new RedisPolicyStore(redis.url),
  {
    second: async () => new RedisPolicyStore(redis.url),
  },
);

describePolicyStoreContract(
  { describe, it, beforeEach, afterEach },
  'RedisPolicyStore (Cluster, two clients)',
  async () => new RedisPolicyStore(new Cluster(cluster.startupNodes)),
  { second: async () => new RedisPolicyStore(new Cluster(cluster.startupNodes)) },
);

describe('RedisPolicyStore specifics', () => {
  it('leaves a client the caller owns open on close', async () => {
    const client = new Redis(redis.url);
    const store = new RedisPolicyStore(client, { keyPrefix: 'own:' });
    expect((await store.consume('k', 1, 1000)).allowed).toBe(true);
    await store.close();
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
  });

  it('fails fast with StorageUnavailableError while Redis is down, and works again when it is back', async () => {
    const own = await PrivateRedis.start();
    const store = new RedisPolicyStore(own.url);
    expect((await store.consume('k', 5, 1000)).allowed).toBe(true);
    await own.down();
    await expect(store.consume('k', 5, 1000)).rejects.toMatchObject({ code: -32603, message: 'The policy store is unavailable' });
    await own.up();
    await waitFor(
      () =>
        store.consume('k', 5, 1000).then(
          () => true,
          () => false,
        ),
      { timeoutMs: 10_000, intervalMs: 100, what: 'the store to work again' },
    );
    await store.close();
    await own.stop();
  });
});
