import Redis from 'ioredis';
import { RedisTaskStore } from '../../../src/redis';
import { describeTaskStoreContract } from '../../../src/testing';
import { fakeWallClock } from '../../helpers/clock';
import { PrivateRedis } from '../../helpers/redis-server';
import { waitFor } from '../../helpers/wait-for';

let redis: PrivateRedis;
let prefix = 0;
beforeAll(async () => {
  redis = await PrivateRedis.start();
});
afterAll(() => redis.stop());

describeTaskStoreContract(
  { describe, it, beforeEach, afterEach },
  'RedisTaskStore (URL)',
  async () => new RedisTaskStore(redis.url, { keyPrefix: `t${++prefix}:` }),
);

describe('RedisTaskStore specifics', () => {
  it('works on a client the caller owns, and leaves it open on close', async () => {
    const client = new Redis(redis.url);
    const store = new RedisTaskStore(client, { keyPrefix: 'own:' });
    const record = await store.create({ owner: 'o', ttl: 10_000 });
    expect((await store.get(record.task.taskId, 'o'))?.task.status).toBe('working');
    await store.close();
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
  });

  it('keeps ttl as Redis expiry on the task and what belongs to it', async () => {
    const client = new Redis(redis.url);
    const store = new RedisTaskStore(redis.url, { keyPrefix: 'ttl:' });
    const { task } = await store.create({ owner: 'o', ttl: 5_000 });
    await store.appendSegments(task.taskId, 'o', [{ type: 'text', text: 'a' }]);
    await store.finish(task.taskId, 'o', 'completed', { result: {} });
    // The task, its outcome and its segments (the tombstone that remembers the id outlives them on purpose).
    const keys = (await client.keys(`ttl:*${task.taskId}*`)).filter((key) => !key.endsWith(':known'));
    expect(keys).toHaveLength(3);
    for (const key of keys) {
      const pttl = await client.pttl(key);
      expect(pttl).toBeGreaterThan(3_000);
      expect(pttl).toBeLessThanOrEqual(5_000);
    }
    await store.close();
    client.disconnect();
  });

  it('fails tasks whose lease ran out, once, whichever instance reaps', async () => {
    const a = new RedisTaskStore(redis.url, { keyPrefix: 'lease:' });
    const b = new RedisTaskStore(redis.url, { keyPrefix: 'lease:' });
    const { task } = await a.create({ owner: 'o', ttl: 60_000 });
    const clock = fakeWallClock();
    let fromA, fromB;
    try {
      await a.renewLeases([task.taskId], 50);
      expect(await b.reapAbandoned('gone', 0)).toEqual([]);
      clock.advance(80);
      [fromA, fromB] = await Promise.all([
        a.reapAbandoned('The instance running this task stopped', 0),
        b.reapAbandoned('The instance running this task stopped', 0),
      ]);
    } finally {
      clock.restore();
    }
    expect(fromA.length + fromB.length).toBe(1);
    expect((await b.get(task.taskId, 'o'))?.task).toMatchObject({
      status: 'failed',
      statusMessage: 'The instance running this task stopped',
    });
    await Promise.all([a.close(), b.close()]);
  });

  it('does not reap right after connecting: live instances get a grace period to renew', async () => {
    const store = new RedisTaskStore(redis.url, { keyPrefix: 'grace:' });
    const { task } = await store.create({ owner: 'o', ttl: 60_000 });
    const clock = fakeWallClock();
    try {
      await store.renewLeases([task.taskId], 1);
      clock.advance(10);
      expect(await store.reapAbandoned('gone', 60_000)).toEqual([]);
      expect((await store.reapAbandoned('gone', 0)).map((r) => r.task.taskId)).toEqual([task.taskId]);
    } finally {
      clock.restore();
    }
    await store.close();
  });

  it('fails fast with a clear error while Redis is down, and works again when it is back', async () => {
    const store = new RedisTaskStore(redis.url, { keyPrefix: 'fault:' });
    const { task } = await store.create({ owner: 'o', ttl: 60_000 });
    await redis.down();
    // Answered while Redis is still down: the store does not queue commands until it comes back.
    await expect(store.get(task.taskId, 'o')).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('The task store is unavailable'),
    });
    await redis.up();
    await waitFor(
      () =>
        store.create({ owner: 'o', ttl: 60_000 }).then(
          () => true,
          () => false,
        ),
      { timeoutMs: 10_000, intervalMs: 100, what: 'the store to work again' },
    );
    await store.close();
  });
});
