import { connect, createServer, type Server, type Socket } from 'node:net';
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

  it('wakes every waiter whose pub/sub connection was killed while the tasks finished', async () => {
    const admin = new Redis(redis.url);
    // A re-check interval longer than the test: only the re-read after resubscribing can wake them.
    const waiting = new RedisTaskStore(redis.url, { keyPrefix: 'wake:', recheckMs: 600_000 });
    const finishing = new RedisTaskStore(redis.url, { keyPrefix: 'wake:' });
    const records = await Promise.all(Array.from({ length: 10 }, () => finishing.create({ owner: 'o', ttl: 60_000 })));
    let woke = 0;
    const waits = records.map((r) => waiting.waitForChange(r.task.taskId, 'o', r.version).then(() => woke++));
    await waitFor(async () => (await subscriptions(admin)) === 10);
    await admin.client('KILL', 'TYPE', 'pubsub');
    await Promise.all(records.map((r) => finishing.finish(r.task.taskId, 'o', 'completed', { result: { content: [] } })));
    await waitFor(() => woke === 10, { timeoutMs: 10_000, what: 'every waiter to wake' });
    await Promise.all(waits);
    await Promise.all([waiting.close(), finishing.close()]);
    admin.disconnect();
  });

  it('waits on when its subscriber drops before it listens, and wakes once it listens again', async () => {
    const admin = new Redis(redis.url);
    // The waiting store reaches Redis through a relay that drops the connection of the first SUBSCRIBE it carries.
    const relay = await cuttingRelay(redis.url, '\r\nsubscribe\r\n');
    const waiting = new RedisTaskStore(`redis://127.0.0.1:${relay.port}`, { keyPrefix: 'early:', recheckMs: 600_000 });
    const finishing = new RedisTaskStore(redis.url, { keyPrefix: 'early:' });
    const record = await finishing.create({ owner: 'o', ttl: 60_000 });
    let woke = false;
    const wait = waiting.waitForChange(record.task.taskId, 'o', record.version).then(() => (woke = true));
    await waitFor(() => relay.cuts() === 1, { what: 'the relay to drop the first SUBSCRIBE' });
    await waitFor(async () => (await subscriptions(admin)) === 1, { timeoutMs: 10_000, what: 'the subscriber to listen again' });
    expect(woke).toBe(false);
    await finishing.finish(record.task.taskId, 'o', 'completed', { result: { content: [] } });
    await wait;
    await Promise.all([waiting.close(), finishing.close()]);
    relay.close();
    admin.disconnect();
  });

  it('re-reads on its interval, so a waiter wakes although its subscriber is still away', async () => {
    const admin = new Redis(redis.url);
    // The caller's client reconnects after 30 s only (its subscriber, a duplicate, too); its commands still run meanwhile.
    const slow = new Redis(redis.url, { retryStrategy: () => 30_000 });
    const waiting = new RedisTaskStore(slow, { keyPrefix: 'tick:', recheckMs: 200 });
    const finishing = new RedisTaskStore(redis.url, { keyPrefix: 'tick:' });
    const record = await finishing.create({ owner: 'o', ttl: 60_000 });
    let woke = false;
    const wait = waiting.waitForChange(record.task.taskId, 'o', record.version).then(() => (woke = true));
    await waitFor(async () => (await subscriptions(admin)) === 1);
    await admin.client('KILL', 'TYPE', 'pubsub');
    await finishing.finish(record.task.taskId, 'o', 'completed', { result: { content: [] } });
    await waitFor(() => woke, { timeoutMs: 10_000, what: 'the waiter to wake' });
    await wait;
    await Promise.all([waiting.close(), finishing.close()]);
    slow.disconnect();
    admin.disconnect();
  });

  it('gives leases a grace after any failed call, also when the connection never dropped (as a Cluster client)', async () => {
    const admin = new Redis(redis.url);
    const store = new RedisTaskStore(redis.url, { keyPrefix: 'pause:' });
    const { task } = await store.create({ owner: 'o', ttl: 60_000 });
    await store.renewLeases([task.taskId], 1);
    const clock = fakeWallClock();
    try {
      clock.advance(120_000); // long past the grace after connecting
      // Writes hang until the command times out: the connection stays up, no 'ready' follows.
      await admin.call('CLIENT', 'PAUSE', '10000', 'WRITE');
      await expect(store.renewLeases([task.taskId], 1)).rejects.toMatchObject({ message: 'The task store is unavailable' });
      await admin.call('CLIENT', 'UNPAUSE');
      clock.advance(10);
      expect(await store.reapAbandoned('gone', 60_000)).toEqual([]);
      clock.advance(120_000);
      expect((await store.reapAbandoned('gone', 60_000)).map((r) => r.task.taskId)).toEqual([task.taskId]);
    } finally {
      clock.restore();
      await admin.call('CLIENT', 'UNPAUSE');
    }
    await store.close();
    admin.disconnect();
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

/** How many channels the server's pub/sub clients listen on. */
async function subscriptions(admin: Redis): Promise<number> {
  const list = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
  return [...list.matchAll(/ sub=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/**
 * A TCP relay to the Redis at `path` that drops, once, the connection whose client sends `marker`
 * (before passing it on): a connection lost between a command and its reply, on demand.
 */
async function cuttingRelay(path: string, marker: string): Promise<{ port: number; cuts(): number; close(): void }> {
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect({ path });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined); // the other side's end is what the store sees
    }
    client.on('data', (chunk: Buffer) => {
      if (cuts === 0 && chunk.toString('latin1').toLowerCase().includes(marker)) {
        cuts++;
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    cuts: () => cuts,
    close: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
