import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { example, spawnExample } from '../../test/helpers/examples';
import { PrivateRedis } from '../../test/helpers/redis-server';

/**
 * Two instances of the example sharing a private redis-server. The official SDK client starts a task on
 * instance A, then follows it from instance B in the same session, as a client sent there by a load
 * balancer would: B reports its status, waits for its result and can cancel it while A runs it.
 */
describe('examples/redis-tasks', () => {
  let redis: PrivateRedis;
  let a: Awaited<ReturnType<typeof spawnExample>>;
  let b: Awaited<ReturnType<typeof spawnExample>>;
  let onA: Client;
  let onB: Client;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    const env = { REDIS_URL: redis.url, STEP_MS: '150' };
    [a, b] = await Promise.all([
      spawnExample(example('redis-tasks'), { ...env, INSTANCE_NAME: 'A' }),
      spawnExample(example('redis-tasks'), { ...env, INSTANCE_NAME: 'B' }),
    ]);
    onA = new Client({ name: 'reports-user', version: '1.0.0' });
    const transportA = new StreamableHTTPClientTransport(new URL(a.url));
    await onA.connect(transportA);
    // The same session, reached through instance B: a reconnecting client does not initialize again.
    const transportB = new StreamableHTTPClientTransport(new URL(b.url), { sessionId: transportA.sessionId });
    transportB.setProtocolVersion(transportA.protocolVersion!);
    onB = new Client({ name: 'reports-user', version: '1.0.0' });
    await onB.connect(transportB);
  }, 180_000);
  afterAll(async () => {
    await onA?.close();
    await onB?.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.stop();
  });

  const start = (months: number) =>
    onA.request(
      { method: 'tools/call', params: { name: 'salesReport', arguments: { region: 'east', months }, task: { ttl: 600_000 } } },
      CreateTaskResultSchema,
    );

  it('starts a task on instance A and gets its result from instance B', async () => {
    const { task } = await start(6);
    expect(task).toMatchObject({ status: 'working', taskId: expect.any(String) });

    expect(await onB.experimental.tasks.getTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'working' });
    // tasks/result on B blocks until A finishes: A's last write to Redis wakes B's waiter.
    const result = await onB.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toEqual({ region: 'east', months: 6, totalSales: 3 * 1000 * 6 + 10 * 21, computedBy: 'A' });
    expect(await onB.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'completed' });
    expect((await onB.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(task.taskId);
  });

  it('cancels from instance B a task that instance A runs', async () => {
    const { task } = await start(36);
    expect(await onB.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    expect(await onA.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
  });

  it("runs a report with the SDK's callToolStream, as the README shows", async () => {
    const client = new Client({ name: 'reports-user', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(b.url)));
    const types: string[] = [];
    let last: unknown;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'salesReport', arguments: { region: 'north', months: 2 } },
      CallToolResultSchema,
      { task: { ttl: 600_000 } },
    )) {
      types.push(message.type);
      last = message;
    }
    await client.close();
    expect(types[0]).toBe('taskCreated');
    expect(last).toMatchObject({
      type: 'result',
      result: { structuredContent: { region: 'north', months: 2, totalSales: 2030, computedBy: 'B' } },
    });
  });

  it('refuses to run the report outside a task', async () => {
    await expect(onB.callTool({ name: 'salesReport', arguments: { region: 'east', months: 1 } })).rejects.toMatchObject({ code: -32601 });
  });
});
