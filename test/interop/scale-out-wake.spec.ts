import Redis from 'ioredis';
import { HTTP_FIXTURE } from '../helpers/paths';
import { PrivateRedisCluster } from '../helpers/redis-cluster';
import { PrivateRedis } from '../helpers/redis-server';
import { PrivateRedisSentinel } from '../helpers/redis-sentinel';
import { type Answer, scaleOutSession, startSleeper } from '../helpers/scale-out-session';
import { spawnHttpServer } from '../helpers/spawn-server';
import { waitFor } from '../helpers/wait-for';

type Server = Awaited<ReturnType<typeof spawnHttpServer>>;

/** A Redis topology: the fixture's environment, and an admin connection to each data node (to kill clients). */
interface Topology {
  env: Record<string, string>;
  admins: Redis[];
  stop(): Promise<void>;
}

async function oneRedis(): Promise<Topology> {
  const redis = await PrivateRedis.start();
  return { env: { REDIS_URL: redis.url }, admins: [new Redis(redis.url)], stop: () => redis.stop() };
}

async function sentinelSet(): Promise<Topology> {
  const set = await PrivateRedisSentinel.start();
  return {
    env: { REDIS_SENTINELS: set.sentinels.map((s) => `${s.host}:${s.port}`).join(',') },
    admins: [await set.master()],
    stop: () => set.stop(),
  };
}

async function cluster(): Promise<Topology> {
  const nodes = await PrivateRedisCluster.start();
  return {
    env: {
      REDIS_CLUSTER: nodes.startupNodes.map((n) => `${n.host}:${n.port}`).join(','),
      // A Cluster re-subscribes without telling its users, so a lost message waits for the next re-check:
      // 1 s here, within the tasks' 2.5 s (the default 5 s would let them end before it).
      RECHECK_MS: '1000',
    },
    // A Cluster client subscribes on any node, replicas included.
    admins: nodes.nodeClients(),
    stop: () => nodes.stop(),
  };
}

/**
 * Pub/sub delivers at most once: a waiter whose subscriber reconnects misses what was published
 * meanwhile. Ten tasks/result waiters on one instance, ten tasks finishing on the other, and the
 * server killing every pub/sub connection again and again while they finish: every waiter answers.
 */
describe.each([
  ['one Redis', oneRedis],
  ['a Sentinel set', sentinelSet],
  ['a Cluster', cluster],
] as const)('scale-out waiters on %s always wake', (_topology, start) => {
  let topology: Topology;
  let a: Server;
  let b: Server;
  /** The servers of the running test, stopped after it. */
  let servers: Server[] = [];
  let tests = 0;

  beforeAll(async () => {
    topology = await start();
  }, 60_000);
  // Each test has two instances of its own, on a key prefix of its own; the topology stays.
  beforeEach(async () => {
    const env = { ...topology.env, REDIS_PREFIX: `wake${process.pid}-${++tests}:` };
    const launch = async () => {
      const server = await spawnHttpServer(HTTP_FIXTURE, env);
      servers.push(server);
      return server;
    };
    [a, b] = await Promise.all([launch(), launch()]);
  }, 60_000);
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    servers = [];
  });
  afterAll(async () => {
    for (const admin of topology?.admins ?? []) admin.disconnect();
    await topology?.stop();
  });

  it('answers every tasks/result waiter although its pub/sub connection was killed while the tasks finished', async () => {
    const s = await scaleOutSession(a);
    const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => startSleeper(s, a, 16, i + 1)));
    let answered = 0;
    const answers = ids.map((taskId, i) =>
      s.post(b, { jsonrpc: '2.0', id: 100 + i, method: 'tasks/result', params: { taskId } }).finally(() => answered++),
    );
    // Each task's channel has two listeners: a's watch for a cancellation, and b's waiter.
    await listening(topology.admins, ids, 2);
    // From before the tasks end (800 ms) until after: every pub/sub connection, on both instances, killed every 20 ms.
    const until = Date.now() + 1_500;
    while (Date.now() < until) {
      await killSubscribers(topology.admins);
      await new Promise((r) => setTimeout(r, 20));
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`${10 - answered} of 10 waiters never answered`)), 15_000)),
    );
    const results: Answer[] = await Promise.race([Promise.all(answers), late]).finally(() => clearTimeout(timer));
    // What each waiter got: the tool's text, or all that came back (status, message, the stream's events).
    const got = results.map(
      (r) => r.json?.result?.content?.[0]?.text ?? JSON.stringify({ status: r.status, json: r.json, events: r.events }),
    );
    expect(got).toEqual(ids.map(() => 'slept'));
  }, 60_000);

  it('brings a cancellation made through the other instance to the handler, its pub/sub connection killed meanwhile', async () => {
    const s = await scaleOutSession(a);
    const taskIds = await Promise.all(Array.from({ length: 5 }, (_, i) => startSleeper(s, a, 50, 200 + i)));
    await listening(topology.admins, taskIds, 1); // a watches the tasks for a cancellation
    const pinged = await s.post(b, { jsonrpc: '2.0', id: 299, method: 'ping' });
    expect(pinged.status).toBe(200); // b serves the session
    const before = (a.stderr().match(/sleeper aborted/g) ?? []).length;
    const cancels = taskIds.map((taskId, i) => s.post(b, { jsonrpc: '2.0', id: 300 + i, method: 'tasks/cancel', params: { taskId } }));
    const until = Date.now() + 500;
    while (Date.now() < until) {
      await killSubscribers(topology.admins);
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const c of await Promise.all(cancels)) expect(c.json).toMatchObject({ result: { status: 'cancelled' } });
    // The handlers stop well before their 2.5 s are up (each says so on stderr).
    await waitFor(() => (a.stderr().match(/sleeper aborted/g) ?? []).length - before === 5, {
      timeoutMs: 10_000,
      what: 'every handler on a to be aborted',
    });
  }, 60_000);
});

/**
 * Resolves once each task's channel (`<prefix>ch:<taskId>`) has at least `count` listeners, summed over the
 * data nodes (PUBSUB NUMSUB): the event the test waits for, however loaded the machine.
 */
async function listening(admins: Redis[], taskIds: string[], count: number): Promise<void> {
  const counts = async () => {
    const byTask = new Map(taskIds.map((id) => [id, 0]));
    for (const admin of admins) {
      const channels = ((await admin.call('PUBSUB', 'CHANNELS', '*')) as string[]).filter((c) =>
        taskIds.some((id) => c.endsWith(`ch:${id}`)),
      );
      if (channels.length === 0) continue;
      const numsub = (await admin.call('PUBSUB', 'NUMSUB', ...channels)) as (string | number)[];
      for (let i = 0; i < numsub.length; i += 2) {
        const id = taskIds.find((t) => String(numsub[i]).endsWith(`ch:${t}`))!;
        byTask.set(id, byTask.get(id)! + Number(numsub[i + 1]));
      }
    }
    return byTask;
  };
  await waitFor(async () => [...(await counts()).values()].every((n) => n >= count), {
    timeoutMs: 30_000,
    intervalMs: 50,
    what: `${count} listener(s) on every task's channel`,
  });
}

/**
 * Kills the pub/sub connections of the instances. Not the sentinels' own (named `sentinel-...`):
 * without them the sentinels would take the master for down and fail over, which is another test.
 */
async function killSubscribers(admins: Redis[]): Promise<void> {
  await Promise.all(
    admins.map(async (admin) => {
      const list = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
      const ids = [...list.matchAll(/^id=(\d+) .*?\bname=(\S*)/gm)].filter((m) => !m[2].startsWith('sentinel-')).map((m) => m[1]);
      await Promise.all(ids.map((id) => admin.call('CLIENT', 'KILL', 'ID', id).catch(() => undefined)));
    }),
  );
}
