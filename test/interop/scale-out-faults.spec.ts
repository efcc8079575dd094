import { HTTP_FIXTURE } from '../helpers/paths';
import { PrivateRedis } from '../helpers/redis-server';
import { scaleOutSession } from '../helpers/scale-out-session';
import { spawnHttpServer } from '../helpers/spawn-server';
import { waitFor } from '../helpers/wait-for';

type Server = Awaited<ReturnType<typeof spawnHttpServer>>;

/** Faults of a scaled-out deployment: Redis going away and coming back, an instance killed mid-task. */
describe('scale-out faults', () => {
  let redis: PrivateRedis;
  /** The servers of the running test, stopped after it (but one it killed). */
  let servers: Server[] = [];
  let tests = 0;

  beforeAll(async () => {
    // A production Redis persists what it acknowledges; so does this one (append-only, fsync always).
    redis = await PrivateRedis.start({ persistent: true });
  }, 60_000);
  afterEach(async () => {
    await Promise.all(servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null).map((s) => s.stop()));
    servers = [];
  });
  afterAll(async () => {
    await redis.stop();
  });

  /** Two instances of this test's own, sharing a key prefix no other test uses. */
  async function instances(): Promise<[Server, Server]> {
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: `faults${process.pid}-${++tests}:`, LEASE_MS: '500' };
    const start = async () => {
      const server = await spawnHttpServer(HTTP_FIXTURE, env);
      servers.push(server);
      return server;
    };
    return Promise.all([start(), start()]);
  }

  it('fails fast with a clear JSON-RPC error while Redis is down, stays up, and recovers without a restart', async () => {
    const [a, b] = await instances();
    const s = await scaleOutSession(a);
    expect(s.id).toMatch(/^[0-9a-f]{32}$/);
    const acknowledged = await s.post(a, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'reindex', arguments: { batches: 1, delayMs: 1 }, task: { ttl: 60_000 } },
    });
    const taskId = acknowledged.json.result.task.taskId as string;

    await redis.down();
    // Each answer below arrives while Redis is still down (a request queued until it is back would run into the test timeout).
    // A task needs the store: a JSON-RPC error that says what is missing.
    const task = await s.post(a, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'reindex', arguments: { batches: 1, delayMs: 1 }, task: {} },
    });
    expect(task.json.error).toMatchObject({ code: -32603, message: expect.stringContaining('unavailable') });
    // A session this instance never saw cannot be restored: 503 with a JSON-RPC body.
    const elsewhere = await s.post(b, { jsonrpc: '2.0', id: 3, method: 'ping' });
    expect(elsewhere.status).toBe(503);
    expect(elsewhere.json.error).toMatchObject({ code: -32603, message: expect.stringContaining('unavailable') });
    // A new session cannot be shared, so it is refused the same way.
    const fresh = await scaleOutSession(b);
    expect(fresh.id).toBeNull();
    // Plain requests on a session this instance already serves need no Redis.
    expect(
      (await s.post(a, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'count', arguments: {} } })).json.result,
    ).toBeDefined();

    await redis.up();
    // New work succeeds on both instances without restarting them.
    await waitFor(
      async () => {
        const again = await scaleOutSession(b);
        return again.id !== null && (await again.post(a, { jsonrpc: '2.0', id: 5, method: 'ping' })).status === 200;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'both instances to serve shared sessions again' },
    );
    const after = await scaleOutSession(a);
    const newTask = await after.post(b, {
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/call',
      params: { name: 'reindex', arguments: { batches: 1, delayMs: 1 }, task: {} },
    });
    expect(newTask.json.result.task.status).toBe('working');
    // Nothing acknowledged was lost: the session and the task from before the outage are still served, by either instance.
    for (const target of [a, b]) {
      const kept = await s.post(target, { jsonrpc: '2.0', id: 7, method: 'tasks/result', params: { taskId } });
      expect(kept.json.result).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('1 batches') }] });
    }
  }, 60_000);

  it('fails, after its lease, a task whose instance was killed, rather than leaving it working forever', async () => {
    const [victim, b] = await instances();
    const s = await scaleOutSession(victim);
    const created = await s.post(victim, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'sleeper', arguments: { events: 50 }, task: { ttl: 60_000 } },
    });
    const taskId = created.json.result.task.taskId as string;
    victim.child.kill('SIGKILL');
    // The session was shared, so the surviving instance serves it and sees the task.
    const get = () => s.post(b, { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId } });
    expect((await get()).json.result.status).toBe('working');
    await waitFor(async () => (await get()).json.result.status !== 'working', {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the lease to run out',
    });
    expect((await get()).json.result).toMatchObject({ status: 'failed', statusMessage: 'The server running this task stopped responding' });
    const result = await s.post(b, { jsonrpc: '2.0', id: 3, method: 'tasks/result', params: { taskId } });
    expect(result.json.result).toMatchObject({ isError: true });
  }, 30_000);
});
