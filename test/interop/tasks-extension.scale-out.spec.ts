import { envelope, postPerRequest, type RawReply } from '../helpers/per-request-http';
import { TASKS_EXT_FIXTURE } from '../helpers/paths';
import { PrivateRedis } from '../helpers/redis-server';
import { RoundRobinProxy } from '../helpers/round-robin-proxy';
import { spawnHttpServer } from '../helpers/spawn-server';
import { waitFor } from '../helpers/wait-for';

const POLL = { intervalMs: 50 };
type Server = Awaited<ReturnType<typeof spawnHttpServer>>;
const TASKS = 'io.modelcontextprotocol/tasks';
const meta = envelope({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS]: {} } } });

/**
 * Tasks of the 2026-07-28 era (the io.modelcontextprotocol/tasks extension) on two mcpkit processes
 * sharing one private Redis behind a round-robin proxy: a task created through one instance is read,
 * answered and cancelled through the other, and an instance killed mid-task leaves its task failed.
 */
describe('tasks extension scale-out: two instances, one Redis', () => {
  let redis: PrivateRedis;
  let a: Server;
  let b: Server;
  /** The servers of the running test, stopped after it. */
  let servers: Server[] = [];
  let proxy: RoundRobinProxy;
  let url: string;
  let tests = 0;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
  }, 60_000);
  // Each test has two instances and a proxy of its own, on a key prefix of its own; the Redis stays.
  beforeEach(async () => {
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: `tasks-ext${process.pid}-${++tests}:`, LEASE_MS: '500' };
    const start = async () => {
      const server = await spawnHttpServer(TASKS_EXT_FIXTURE, env);
      servers.push(server);
      return server;
    };
    [a, b] = await Promise.all([start(), start()]);
    proxy = new RoundRobinProxy([a.port, b.port]);
    url = await proxy.start();
  }, 60_000);
  afterEach(async () => {
    await proxy?.stop();
    // A test may have killed a (SIGKILL): stop only what still runs.
    await Promise.all(servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null).map((s) => s.stop()));
    servers = [];
  });
  afterAll(async () => {
    await redis?.stop();
  });

  /** One per-request-era request through the proxy, sent to instance `backend` (0: a, 1: b). */
  async function via(backend: 0 | 1, method: string, params: Record<string, unknown>): Promise<RawReply['body']> {
    proxy.pinNext = backend;
    const before = proxy.log.length;
    const taskId = typeof params.taskId === 'string' ? params.taskId : undefined;
    const reply = await postPerRequest(url, method, { ...params, _meta: meta }, taskId ? { 'mcp-name': taskId } : {});
    expect(proxy.log[before].backend).toBe(backend);
    return reply.body;
  }

  async function createTask(backend: 0 | 1, name: string, args: Record<string, unknown>): Promise<string> {
    const created = await via(backend, 'tools/call', { name, arguments: args });
    expect(created.result).toMatchObject({ resultType: 'task', taskId: expect.any(String) });
    return created.result!.taskId as string;
  }

  const statusVia = async (backend: 0 | 1, taskId: string) =>
    (await via(backend, 'tasks/get', { taskId })).result as Record<string, unknown> & { status: string };

  it('reads, answers (tasks/update) and sees the result of a task through the instance that did not create it', async () => {
    const taskId = await createTask(0, 'order', { item: 'a chair' });
    const waiting = await waitFor(async () => {
      const task = await statusVia(1, taskId);
      return task.status === 'input_required' ? task : undefined;
    }, POLL);
    const requests = waiting.inputRequests as Record<string, { method: string; params: { message: string } }>;
    const [key] = Object.keys(requests);
    expect(requests[key]).toMatchObject({ method: 'elicitation/create', params: { message: 'Approve a chair?' } });

    const ack = await via(1, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { approved: true } } } });
    expect(ack.result).toMatchObject({ resultType: 'complete' });
    const done = await waitFor(async () => {
      const task = await statusVia(1, taskId);
      return task.status === 'completed' ? task : undefined;
    }, POLL);
    // The handler ran (and resumed) on instance a, the process that created the task.
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: `placed a chair (accept) on pid ${a.child.pid}` }] });
  });

  it('cancels a task through the other instance: tasks/get on either says cancelled, and the handler on its instance is aborted', async () => {
    const taskId = await createTask(0, 'slow', { ms: 60_000 });
    expect((await statusVia(1, taskId)).status).toBe('working');
    const ack = await via(1, 'tasks/cancel', { taskId });
    expect(ack.result).toMatchObject({ resultType: 'complete' });
    expect((await statusVia(0, taskId)).status).toBe('cancelled');
    expect((await statusVia(1, taskId)).status).toBe('cancelled');
    await waitFor(() => a.stderr().includes(`slow aborted on pid ${a.child.pid}`), POLL);
  });

  it('leaves the task of an instance killed mid-task failed, with a status message, never lost', async () => {
    const taskId = await createTask(0, 'slow', { ms: 60_000 });
    expect((await statusVia(1, taskId)).status).toBe('working');
    const exited = new Promise((r) => a.child.once('exit', r));
    a.child.kill('SIGKILL');
    await exited;
    const failed = await waitFor(
      async () => {
        const task = await statusVia(1, taskId);
        return task.status === 'working' ? undefined : task;
      },
      { ...POLL, timeoutMs: 10_000 },
    );
    expect(failed).toMatchObject({
      taskId,
      status: 'failed',
      statusMessage: expect.any(String),
      error: { code: expect.any(Number), message: expect.any(String) },
    });
  });
});
