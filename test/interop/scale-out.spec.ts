import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { HTTP_FIXTURE } from '../helpers/paths';
import { PrivateRedis } from '../helpers/redis-server';
import { RoundRobinProxy } from '../helpers/round-robin-proxy';
import { SseReader } from '../helpers/sse-client';
import { spawnHttpServer } from '../helpers/spawn-server';
import { waitFor } from '../helpers/wait-for';
import { envelope, postPerRequest } from '../helpers/per-request-http';

type Server = Awaited<ReturnType<typeof spawnHttpServer>>;
type Message = { type: string; task?: { taskId: string; status: string }; result?: { content: { text: string }[] } };

/**
 * Two mcpkit processes sharing one private Redis behind a round-robin proxy: after initialize, the
 * official SDK client's requests alternate between the instances, and everything still works.
 */
describe('scale-out: two instances, one Redis, round-robin', () => {
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
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: `so${process.pid}-${++tests}:`, LEASE_MS: '600', RETRY_MS: '20' };
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
    await redis?.stop();
  });

  async function connect(capabilities: Record<string, unknown> = {}) {
    const client = new Client({ name: 'scale-out', version: '1.0.0' }, { capabilities });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1.5, maxRetries: 10 },
    });
    await client.connect(transport);
    return { client, transport };
  }

  it('serves every request of one session from either instance', async () => {
    const { client } = await connect({ elicitation: { form: {} } });
    const before = proxy.log.length;
    const logs: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));

    expect((await client.listTools()).tools.map((t) => t.name)).toContain('reindex');
    await client.setLoggingLevel('debug'); // saved in Redis: the other instance honours it too
    const progress: number[] = [];
    const indexed = await client.callTool({ name: 'reindex', arguments: { batches: 3, delayMs: 5 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect((indexed.content as { text: string }[])[0].text).toContain('3 batches');
    expect(progress).toEqual([1, 2, 3]);
    const second = await client.callTool({ name: 'reindex', arguments: { batches: 1, delayMs: 1 } });
    expect((second.content as { text: string }[])[0].text).toContain('1 batches');
    expect(logs.filter((l) => l.startsWith('re-indexed'))).toHaveLength(2);

    const note = await client.readResource({ uri: 'notes://note-1' });
    expect((note.contents[0] as { text: string }).text).toContain('Welcome');
    expect(await client.ping()).toEqual({});

    // The elicitation goes out from the instance running the tool; the answer may come in through the other.
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { confirm: false } }));
    for (let i = 0; i < 2; i++) {
      const kept = await client.callTool({ name: 'archive', arguments: { id: 'note-1' } });
      expect((kept.content as { text: string }[])[0].text).toBe('Kept note-1 (accept)');
    }
    const served = proxy.log.slice(before);
    expect(new Set(served.map((e) => e.backend))).toEqual(new Set([0, 1]));
    // At least one elicitation answer reached the instance that did not send the elicitation.
    const crossed = served.some(
      (e, i) =>
        e.rpc === 'response' &&
        served
          .slice(0, i)
          .reverse()
          .find((p) => p.rpc === 'tools/call:archive')?.backend !== e.backend,
    );
    expect(crossed).toBe(true);
    await client.close();
  });

  it('runs a task started through one instance, polled, awaited, listed and cancelled through the other', async () => {
    const { client } = await connect();
    await client.listTools();
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
    const cancelled = await client.experimental.tasks.cancelTask(created.task!.taskId);
    expect([...proxy.log].reverse().find((e) => e.rpc === 'tasks/cancel')!.backend).toBe(1 - runner);
    expect(cancelled.status).toBe('cancelled');
    await long.return(undefined);
    // Whichever instance runs it, the handler stops (it says so on stderr), and the task stays cancelled.
    await waitFor(() => `${a.stderr()}${b.stderr()}`.includes('sleeper aborted'), { what: 'the handler to stop' });
    expect([a, b][runner].stderr()).toMatch(/sleeper aborted after \d+ steps/);
    expect(await client.experimental.tasks.getTask(created.task!.taskId)).toMatchObject({ status: 'cancelled' });
    await client.close();
  });

  it('cancels a 2026-07-28 task (tasks extension) through the instance that does not run it: the handler stops there', async () => {
    const meta = envelope({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } });
    const aborts = (s: Server) => s.stderr().split('sleeper aborted').length;
    const before = [aborts(a), aborts(b)];
    const created = await postPerRequest(url, 'tools/call', { name: 'sleeper', arguments: { events: 50 }, _meta: meta });
    expect(created.body.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.body.result!.taskId as string;
    const runner = [...proxy.log].reverse().find((e) => e.rpc === 'tools/call:sleeper')!.backend;
    proxy.pinNext = 1 - runner;
    expect((await postPerRequest(url, 'tasks/get', { taskId, _meta: meta })).body.result).toMatchObject({ taskId, status: 'working' });
    proxy.pinNext = 1 - runner;
    expect((await postPerRequest(url, 'tasks/cancel', { taskId, _meta: meta })).body.result).toMatchObject({ resultType: 'complete' });
    await waitFor(() => aborts([a, b][runner]) > before[runner], { what: 'the handler to stop on the instance running it' });
    expect(aborts([a, b][1 - runner])).toBe(before[1 - runner]);
    expect((await postPerRequest(url, 'tasks/get', { taskId, _meta: meta })).body.result).toMatchObject({ taskId, status: 'cancelled' });
  });

  it('resumes a dropped SSE stream through the other instance, losing and repeating nothing', async () => {
    proxy.resumeElsewhere = true;
    const { client } = await connect();
    const before = proxy.log.length;
    const logs: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
    const seen: number[] = [];
    const result = await client.callTool({ name: 'dropHalfway', arguments: { events: 8 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect((result.content as { text: string }[])[0].text).toBe('sent 8');
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(logs).toEqual(Array.from({ length: 8 }, (_, i) => `log ${i + 1}`));
    const log = proxy.log.slice(before);
    const call = log.find((e) => e.rpc === 'tools/call:dropHalfway')!;
    const resume = log.find((e) => e.httpMethod === 'GET' && e.lastEventId?.startsWith('r'));
    expect(resume).toBeDefined();
    expect(resume!.backend).not.toBe(call.backend);
    proxy.resumeElsewhere = false;
    await client.close();
  });

  it("carries messages that belong to no request (resource updates) to the client's stream on the other instance", async () => {
    const opened = proxy.log.length;
    const { client } = await connect();
    // The SDK client opens its GET stream without waiting after initialize: an update sent before the
    // stream is open has no stream to go to (the spec keeps no standalone messages for a later GET).
    await waitFor(() => proxy.log.slice(opened).some((e) => e.httpMethod === 'GET' && !e.lastEventId && e.status === 200), {
      what: "the client's GET stream",
    });
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    await client.subscribeResource({ uri: 'notes://index' });
    // Each instance changes its own notes: both publish the update, wherever the client's GET stream is.
    const before = proxy.log.length;
    await client.callTool({ name: 'addNote', arguments: { title: 'one', body: 'x' } });
    await client.callTool({ name: 'addNote', arguments: { title: 'two', body: 'y' } });
    const adders = proxy.log
      .slice(before)
      .filter((e) => e.rpc === 'tools/call:addNote')
      .map((e) => e.backend);
    expect(new Set(adders)).toEqual(new Set([0, 1]));
    await waitFor(() => updates.length >= 2, { what: 'both resource updates' });
    expect(updates).toEqual(['notes://index', 'notes://index']);
    await client.close();
  });

  it('delivers a task’s elicitation on a tasks/result served by the other instance, and its answer back to the task', async () => {
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const post = (body: unknown, backend: number) => {
      proxy.pinNext = backend;
      return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    };
    const init = await post(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'raw', version: '1' } },
      },
      0,
    );
    await init.json();
    headers['mcp-session-id'] = init.headers.get('mcp-session-id')!;
    headers['mcp-protocol-version'] = '2025-11-25';
    const created = (await (
      await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'confirmLater', arguments: { ms: 300 }, task: {} } }, 0)
    ).json()) as { result: { task: { taskId: string } } };
    const taskId = created.result.task.taskId;
    // The task runs on instance 0; its result is awaited through instance 1, on no GET stream.
    proxy.pinNext = 1;
    const waiting = await SseReader.open(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tasks/result', params: { taskId } }),
    });
    await waiting.waitFor((r) => r.messages.some((m) => m.method === 'elicitation/create'), 10_000);
    const ask = waiting.messages.find((m) => m.method === 'elicitation/create') as { id: string; params: Record<string, unknown> };
    expect(ask.params._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId } });
    // The answer comes in through instance 0, which did not send the elicitation.
    expect((await post({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { confirm: true } } }, 0)).status).toBe(202);
    await waiting.finished();
    const final = waiting.messages.find((m) => m.id === 3) as { result: { content: { text: string }[] } };
    expect(final.result.content[0].text).toBe(`confirmed=true on pid ${a.child.pid}`);
  });

  it('terminates a session everywhere with one DELETE', async () => {
    const { client, transport } = await connect();
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    for (const port of [a.port, b.port]) {
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(res.status).toBe(404);
    }
    await client.close();
  });
});
