import { Cluster } from 'ioredis';
import { RedisEventStore, RedisOAuthProxyStore, RedisSessionBackplane, RedisTaskStore } from '../../src/redis';
import { describeTaskStoreContract } from '../../src/testing';
import { PrivateRedisCluster } from '../helpers/redis-cluster';
import { waitFor } from '../helpers/wait-for';

/**
 * Every Redis store on a private 3-master/3-replica Redis Cluster, given as an ioredis `Cluster`: each
 * operation stays in one slot (no CROSSSLOT), and the keys of different owners and sessions spread
 * over the masters.
 */
let cluster: PrivateRedisCluster;
const clients: Cluster[] = [];
let prefix = 0;

beforeAll(async () => {
  cluster = await PrivateRedisCluster.start();
}, 60_000);
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await cluster?.stop();
});

/** A Cluster client the test owns (the stores never close a client they were given). */
function connect(): Cluster {
  const client = new Cluster(cluster.startupNodes);
  clients.push(client);
  return client;
}

describeTaskStoreContract(
  { describe, it, beforeEach, afterEach },
  'RedisTaskStore (Cluster)',
  async () => new RedisTaskStore(connect(), { keyPrefix: `c${++prefix}:` }),
);

describe('Redis stores on a Cluster', () => {
  it('spreads the tasks of different owners over more than one master', async () => {
    const client = connect();
    const store = new RedisTaskStore(client, { keyPrefix: 'spread:' });
    for (let i = 0; i < 40; i++) {
      const { task } = await store.create({ owner: `owner-${i}`, ttl: 60_000 });
      await store.appendSegments(task.taskId, `owner-${i}`, [{ type: 'text', text: 'x' }]);
      await store.finish(task.taskId, `owner-${i}`, 'completed', { result: {} });
    }
    expect((await store.list('owner-7', undefined, 10)).tasks).toHaveLength(1);
    const sizes = await Promise.all(client.nodes('master').map((node) => node.dbsize()));
    expect(sizes.filter((size) => size > 0).length).toBeGreaterThan(1);
    await store.close();
  });

  it('answers for task ids and owners of any form, braces included, as for unknown ones', async () => {
    const store = new RedisTaskStore(connect(), { keyPrefix: 'forms:' });
    for (const owner of ['{a}', '}{', '', 'p:issuer|{sub}']) {
      const { task } = await store.create({ owner, ttl: 60_000 });
      await store.appendSegments(task.taskId, owner, [{ type: 'text', text: 'x' }]);
      expect((await store.finish(task.taskId, owner, 'completed', { result: {} }))?.task.status).toBe('completed');
      expect((await store.list(owner, undefined, 10)).tasks.map((r) => r.task.taskId)).toEqual([task.taskId]);
    }
    for (const taskId of ['', '{', '}{', '{x}', '.', 'abcdef01.{y}', 'zzzzzzzz.1']) {
      expect(await store.get(taskId, '{a}')).toBeUndefined();
      expect(await store.setStatus(taskId, '{a}', 'input_required')).toBeUndefined();
      expect(await store.finish(taskId, '{a}', 'cancelled', { result: {} })).toBeUndefined();
      expect(await store.appendSegments(taskId, '{a}', [{ type: 'text', text: 'x' }])).toEqual([]);
      expect(await store.segments(taskId, '{a}', 0)).toEqual([]);
      expect(await store.wasExpired(taskId)).toBe(false);
    }
    await store.close();
  });

  it('lists the tasks of one owner in pages, oldest first', async () => {
    const store = new RedisTaskStore(connect(), { keyPrefix: 'pages:' });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await store.create({ owner: 'o', ttl: 60_000 })).task.taskId);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list('o', cursor, 3);
      seen.push(...page.tasks.map((r) => r.task.taskId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    await store.close();
  });

  it('stores, replays and clears the events of many sessions', async () => {
    const client = connect();
    const store = new RedisEventStore(client, { keyPrefix: 'ev:' });
    for (let s = 0; s < 20; s++) {
      const first = await store.storeEvent(`session-${s}`, 'get', { jsonrpc: '2.0', method: 'one' });
      await store.storeEvent(`session-${s}`, 'get', { jsonrpc: '2.0', method: 'two' });
      await store.storeEvent(`session-${s}`, 'post-1', null);
      expect(await store.eventsAfter(`session-${s}`, first)).toEqual({
        streamId: 'get',
        events: [{ id: expect.stringMatching(/^get\./), message: { jsonrpc: '2.0', method: 'two' } }],
      });
    }
    const sizes = await Promise.all(client.nodes('master').map((node) => node.keys('ev:*')));
    expect(sizes.filter((keys) => keys.length > 0).length).toBeGreaterThan(1);
    for (let s = 0; s < 20; s++) await store.clearSession(`session-${s}`);
    const left = await Promise.all(client.nodes('master').map((node) => node.keys('ev:*')));
    expect(left.flat()).toEqual([]);
    await store.close();
  });

  it('shares session state and messages through the backplane', async () => {
    const backplane = new RedisSessionBackplane(connect(), { keyPrefix: 'bp:' });
    const other = new RedisSessionBackplane(connect(), { keyPrefix: 'bp:' });
    await backplane.save('s1', { protocolVersion: '2025-06-18', clientCapabilities: {}, subscriptions: [], owner: 'o' }, 60_000);
    await other.update('s1', { logLevel: 'debug' }, 60_000);
    expect(await backplane.load('s1', 60_000)).toMatchObject({ owner: 'o', logLevel: 'debug' });
    const received: unknown[] = [];
    const unsubscribe = await backplane.subscribe('s1', (envelope) => received.push(envelope));
    await waitFor(
      async () => {
        await other.publish('s1', { kind: 'terminate', from: 'other' });
        return received.length > 0;
      },
      { what: 'a message through the other client' },
    );
    await unsubscribe();
    expect((await backplane.sharedSecret('secret')).equals(await other.sharedSecret('secret'))).toBe(true);
    await backplane.delete('s1');
    expect(await other.load('s1', 60_000)).toBeUndefined();
    await Promise.all([backplane.close(), other.close()]);
  });

  it('listens to sessions arriving while its subscriber connects, each hearing its own messages', async () => {
    const [mine, theirs] = [connect(), connect()];
    const backplane = new RedisSessionBackplane(mine, { keyPrefix: 'many:' });
    const other = new RedisSessionBackplane(theirs, { keyPrefix: 'many:' });
    await waitFor(() => mine.status === 'ready' && theirs.status === 'ready', { timeoutMs: 10_000, what: 'both Cluster clients ready' });
    // A Cluster's subscriber connects on the first SUBSCRIBE: sessions registered one per turn of the
    // event loop meet its handshake (where ioredis once sent them before its ready check, redis/ioredis#2037).
    const heard = new Map<string, string>();
    const listening: Promise<unknown>[] = [];
    const start = Date.now();
    for (let i = 0; i < 200 && Date.now() - start < 20; i++) {
      listening.push(backplane.subscribe(`s${i}`, (e) => heard.set(`s${i}`, e.from)));
      await new Promise(setImmediate);
    }
    const failed = (await Promise.allSettled(listening)).filter((r) => r.status === 'rejected');
    expect(failed).toEqual([]);
    const ids = listening.map((_, i) => `s${i}`);
    await waitFor(
      async () => {
        await Promise.all(ids.filter((id) => !heard.has(id)).map((id) => other.publish(id, { kind: 'terminate', from: id })));
        return heard.size === ids.length;
      },
      { what: 'a message on every session' },
    );
    expect([...heard].every(([id, from]) => id === from)).toBe(true);
    await Promise.all([backplane.close(), other.close()]);
  });

  it('keeps the OAuth proxy store working', async () => {
    const store = new RedisOAuthProxyStore(connect(), { keyPrefix: 'oauth:' });
    await store.put('code:1', 'grant', 60_000);
    expect(await store.get('code:1')).toBe('grant');
    expect(await store.take('code:1')).toBe('grant');
    expect(await store.take('code:1')).toBeUndefined();
    await store.close();
  });
});
