import { HTTP_FIXTURE } from '../helpers/paths';
import { PrivateRedisSentinel } from '../helpers/redis-sentinel';
import { scaleOutSession, startSleeper } from '../helpers/scale-out-session';
import { spawnHttpServer } from '../helpers/spawn-server';
import { waitFor } from '../helpers/wait-for';

type Server = Awaited<ReturnType<typeof spawnHttpServer>>;

/**
 * A Sentinel failover under load: two instances, tasks running on both with their tasks/result waiting
 * on the other, and the master killed by PID. Nothing acknowledged is lost, every waiter is answered,
 * and requests succeed again within 10 s.
 */
describe('scale-out on Sentinel: a failover', () => {
  let sentinel: PrivateRedisSentinel;
  let a: Server;
  let b: Server;

  beforeAll(async () => {
    sentinel = await PrivateRedisSentinel.start();
    // Short leases: they lapse during the failover, so the reaper's grace after an outage is put to the test.
    const env = { REDIS_SENTINELS: sentinel.sentinels.map((s) => `${s.host}:${s.port}`).join(','), LEASE_MS: '1000' };
    [a, b] = await Promise.all([spawnHttpServer(HTTP_FIXTURE, env), spawnHttpServer(HTTP_FIXTURE, env)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await sentinel?.stop();
  });

  it('loses no task and no result, answers every waiter, and serves again within 10 s', async () => {
    // 100 tasks of 1 to 2.5 s in 10 sessions (an owner runs 16 at most), half on each instance, each
    // with a tasks/result waiting on the other: they end before, during and after the failover.
    const sessions = await Promise.all(Array.from({ length: 10 }, (_, i) => scaleOutSession(i % 2 === 0 ? a : b)));
    const running = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const [on, other] = i % 2 === 0 ? [a, b] : [b, a];
        const s = sessions[i % 10];
        return { s, taskId: await startSleeper(s, on, 20 + (i % 31), i + 1), waiter: other };
      }),
    );
    // A request that fails (an instance died) is an answer with its error, to compare below.
    const answers = running.map(({ s, taskId, waiter }, i) =>
      s
        .post(waiter, { jsonrpc: '2.0', id: 1000 + i, method: 'tasks/result', params: { taskId } })
        .catch((error: unknown) => ({ status: 0, json: { error: String(error) } })),
    );
    await new Promise((r) => setTimeout(r, 300));

    const oldPort = await sentinel.killMaster();
    // New work succeeds again on both instances within 10 s of the kill.
    await waitFor(
      async () => {
        for (const target of [a, b]) {
          const fresh = await scaleOutSession(target);
          if (!fresh.id) return false;
          await startSleeper(fresh, target, 1, 1);
        }
        return true;
      },
      { timeoutMs: 10_000, intervalMs: 200, what: 'both instances to serve new sessions and tasks' },
    );
    expect(await sentinel.failedOver(oldPort)).not.toBe(oldPort);

    // Every waiter is answered with its task's result: no result lost, none failed by the reaper.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error('a tasks/result waiter never answered')), 30_000)),
    );
    const results = await Promise.race([Promise.all(answers), late]).finally(() => clearTimeout(timer));
    const texts = results.map((r) => r.json?.result?.content?.[0]?.text ?? JSON.stringify(r.json));
    expect(texts).toEqual(running.map(() => 'slept'));
    // And every task is there, completed, seen from the instance that did not run it.
    for (const [i, { s, taskId, waiter }] of running.entries()) {
      const got = await s.post(waiter, { jsonrpc: '2.0', id: 2000 + i, method: 'tasks/get', params: { taskId } });
      expect(got.json.result).toMatchObject({ taskId, status: 'completed' });
    }
  }, 90_000);
});
