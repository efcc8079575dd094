import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Cluster } from 'ioredis';
import { HTTP_FIXTURE } from '../helpers/paths';
import { envelope, postPerRequest } from '../helpers/per-request-http';
import { PrivateRedisCluster } from '../helpers/redis-cluster';
import { RoundRobinProxy } from '../helpers/round-robin-proxy';
import { spawnHttpServer } from '../helpers/spawn-server';
import { waitFor } from '../helpers/wait-for';

type Server = Awaited<ReturnType<typeof spawnHttpServer>>;
type Message = { type: string; task?: { taskId: string; status: string }; result?: { content: { text: string }[] } };

/**
 * Two mcpkit processes sharing a private 3-master/3-replica Redis Cluster (each holds an ioredis
 * `Cluster`) behind a round-robin proxy: tasks, SSE resumption and sessions work across the instances,
 * and the tasks of different owners land on more than one master.
 */
describe('scale-out: two instances, one Redis Cluster, round-robin', () => {
  let cluster: PrivateRedisCluster;
  let a: Server;
  let b: Server;
  /** The servers of the running test, stopped after it. */
  let servers: Server[] = [];
  let proxy: RoundRobinProxy;
  let url: string;
  /** The running test's key prefix: its own, so that it finds its keys and only them. */
  let prefix: string;
  let tests = 0;

  beforeAll(async () => {
    cluster = await PrivateRedisCluster.start();
  }, 60_000);
  // Each test has two instances and a proxy of its own; the Cluster stays, the test's keys apart under its prefix.
  beforeEach(async () => {
    prefix = `cluster:${++tests}:`;
    const nodes = cluster.startupNodes.map((n) => `${n.host}:${n.port}`).join(',');
    const env = { REDIS_CLUSTER: nodes, REDIS_PREFIX: prefix, LEASE_MS: '600', RETRY_MS: '20' };
    const start = async () => {
      const server = await spawnHttpServer(HTTP_FIXTURE, env);
      servers.push(server);
      return server;
    };
    [a, b] = await Promise.all([start(), start()]);
    proxy = new RoundRobinProxy([a.port, b.port]);
    url = await proxy.start();
  }, 60_000);
  afterEach(async () => {
    await proxy?.stop();
    await Promise.all(servers.map((s) => s.stop()));
    servers = [];
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  async function connect() {
    const client = new Client({ name: 'scale-out-cluster', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1.5, maxRetries: 10 },
    });
    await client.connect(transport);
    return client;
  }

  it('runs a task started through one instance, polled, awaited, listed and cancelled through the other', async () => {
    const client = await connect();
    const messages: Message[] = [];
    for await (const m of client.experimental.tasks.callToolStream({ name: 'reindex', arguments: { batches: 3, delayMs: 30 } }, undefined, {
      task: { ttl: 60_000 },
    })) {
      messages.push(m as Message);
    }
    const taskId = messages[0].task!.taskId;
    expect(messages.at(-1)).toMatchObject({ type: 'result' });
    for (let i = 0; i < 2; i++) {
      expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'completed' });
      expect((await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).content).toEqual(
        messages.at(-1)!.result!.content,
      );
      expect((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(taskId);
    }

    const long = client.experimental.tasks.callToolStream({ name: 'sleeper', arguments: { events: 50 } }, undefined, {
      task: { ttl: 60_000 },
    });
    const created = (await long.next()).value as Message;
    const runner = [...proxy.log].reverse().find((e) => e.rpc === 'tools/call:sleeper')!.backend;
    proxy.pinNext = 1 - runner; // cancel through the instance that does not run the handler
    expect((await client.experimental.tasks.cancelTask(created.task!.taskId)).status).toBe('cancelled');
    await long.return(undefined);
    await waitFor(() => [a, b][runner].stderr().includes('sleeper aborted'), { what: 'the handler to stop' });
    expect(await client.experimental.tasks.getTask(created.task!.taskId)).toMatchObject({ status: 'cancelled' });
    await client.close();
  });

  it('serves 2026-07-28 tasks (tasks extension) from either instance', async () => {
    const meta = envelope({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } });
    const created = await postPerRequest(url, 'tools/call', { name: 'sleeper', arguments: { events: 50 }, _meta: meta });
    expect(created.body.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.body.result!.taskId as string;
    for (let i = 0; i < 2; i++) {
      expect((await postPerRequest(url, 'tasks/get', { taskId, _meta: meta })).body.result).toMatchObject({ taskId, status: 'working' });
    }
    expect((await postPerRequest(url, 'tasks/cancel', { taskId, _meta: meta })).body.result).toMatchObject({ resultType: 'complete' });
    expect((await postPerRequest(url, 'tasks/get', { taskId, _meta: meta })).body.result).toMatchObject({ taskId, status: 'cancelled' });
  });

  it('resumes a dropped SSE stream through the other instance, losing and repeating nothing', async () => {
    proxy.resumeElsewhere = true;
    try {
      const client = await connect();
      const logs: string[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
      const seen: number[] = [];
      const result = await client.callTool({ name: 'dropHalfway', arguments: { events: 8 } }, undefined, {
        onprogress: (p) => seen.push(p.progress),
      });
      expect((result.content as { text: string }[])[0].text).toBe('sent 8');
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(logs).toEqual(Array.from({ length: 8 }, (_, i) => `log ${i + 1}`));
      await client.close();
    } finally {
      proxy.resumeElsewhere = false;
    }
  });

  it('puts the tasks of different owners (sessions) on more than one master', async () => {
    for (let i = 0; i < 12; i++) {
      const client = await connect();
      for await (const m of client.experimental.tasks.callToolStream(
        { name: 'reindex', arguments: { batches: 1, delayMs: 1 } },
        undefined,
        {
          task: { ttl: 60_000 },
        },
      )) {
        if ((m as Message).type === 'error') throw new Error(JSON.stringify(m));
      }
      await client.close();
    }
    const redis = new Cluster(cluster.startupNodes);
    try {
      await waitFor(() => redis.status === 'ready', { what: 'the Cluster client to connect' });
      const perMaster = await Promise.all(redis.nodes('master').map(async (node) => (await node.keys(`${prefix}t:*`)).length));
      expect(perMaster.reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(12);
      expect(perMaster.filter((n) => n > 0).length).toBeGreaterThan(1);
    } finally {
      redis.disconnect();
    }
  });
});
