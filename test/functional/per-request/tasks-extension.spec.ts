import { McpApplication } from '../../../src';
import { aborted, gate, gates, PerRequestTasksModule, runs } from '../../fixtures/per-request-task-tools';
import { envelope, postPerRequest, type RawReply } from '../../helpers/per-request-http';
import { RawTransport } from '../../helpers/raw-transport';
import { deferred, waitFor } from '../../helpers/wait-for';
import { httpServer } from '../../../src/http';
import { InMemoryTaskStore } from '../../../src/stores';

const TASKS = 'io.modelcontextprotocol/tasks';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
/** The envelope of a client that declares the tasks extension (and elicitation). */
const withTasks = () => envelope({ [CAPS]: { elicitation: {}, extensions: { [TASKS]: {} } } });

type Result = Record<string, unknown>;

/** The 2026-07-28 tasks extension (io.modelcontextprotocol/tasks) over real HTTP. */
describe('the tasks extension over HTTP', () => {
  let app: McpApplication;
  let url: string;
  beforeAll(async () => {
    app = await McpApplication.create(PerRequestTasksModule, { logger: quiet });
    url = (await app.listen(httpServer({ host: '127.0.0.1', port: 0 }))).url;
  });
  afterAll(async () => {
    for (const g of gates.values()) g.resolve();
    await app.close();
  });

  const call = (name: string, args: Result = {}, meta = withTasks()) =>
    postPerRequest(url, 'tools/call', { name, arguments: args, _meta: meta });
  const task = (method: string, params: Result, meta = withTasks(), headers: Record<string, string | undefined> = {}) =>
    postPerRequest(url, method, { ...params, _meta: meta }, headers);
  const get = async (taskId: string) => (await task('tasks/get', { taskId })).body.result!;
  const until = (taskId: string, status: string) =>
    waitFor(async () => ((await get(taskId)).status === status ? get(taskId) : undefined), { what: `task ${taskId} ${status}` });
  const created = (reply: RawReply) => {
    expect(reply.body.result).toMatchObject({ resultType: 'task', taskId: expect.any(String) });
    return reply.body.result!.taskId as string;
  };

  it('advertises the extension in server/discover, not the handshake tasks capability', async () => {
    const reply = await postPerRequest(url, 'server/discover');
    expect(reply.body.result!.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
    expect(reply.body.result!.capabilities).not.toHaveProperty('tasks');
  });

  it('never answers a client without the extension with a task', async () => {
    const key = 'no-ext';
    const pending = call('waits', { key }, envelope());
    await waitFor(() => runs.get('waits'));
    gate(key).resolve();
    expect((await pending).body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: `opened ${key}` }] });
    const required = await call('quick', {}, envelope());
    expect(required.status).toBe(400);
    expect(required.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const reply = await task(method, { taskId: 'whatever', inputResponses: {} }, envelope());
      expect(reply.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
    }
  });

  it('answers a long call with a flat CreateTaskResult, durable at once, then shows the result inline', async () => {
    const reply = await call('waits', { key: 'long' });
    const taskId = created(reply);
    const result = reply.body.result!;
    expect(result).toMatchObject({
      status: 'working',
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
      ttlMs: expect.any(Number),
      pollIntervalMs: expect.any(Number),
    });
    for (const gone of ['task', 'result', 'ttl', 'pollInterval', 'requestState', 'inputRequests']) expect(result).not.toHaveProperty(gone);
    expect(await get(taskId)).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    gate('long').resolve();
    const done = await until(taskId, 'completed');
    expect(done.result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'opened long' }] });
    expect(done).not.toHaveProperty('error');
  });

  it('answers a plain tool, and an optional one that finishes at once, without a task', async () => {
    expect((await call('plain')).body.result).toMatchObject({ resultType: 'complete', content: [{ text: 'plain' }] });
    gate('open-already').resolve();
    expect((await call('waits', { key: 'open-already' })).body.result).toMatchObject({
      resultType: 'complete',
      content: [{ text: 'opened open-already' }],
    });
  });

  it('runs a required-task tool as a task even when it finishes at once; a tool error is a completed task', async () => {
    const taskId = created(await call('quick'));
    const done = await until(taskId, 'completed');
    expect(done.result).toMatchObject({ isError: true, content: [{ text: 'a tool error' }] });
  });

  it('fails a task whose handler throws, with the JSON-RPC error and no result', async () => {
    const taskId = created(await call('fails', { key: 'boom' }));
    gate('boom').resolve();
    const failed = await until(taskId, 'failed');
    expect(failed.error).toEqual({ code: -32050, message: 'the job broke', data: { why: 'test' } });
    expect(failed).not.toHaveProperty('result');
  });

  it('parks a request of the handler as input_required, and resumes the same run with the tasks/update answers', async () => {
    runs.delete('asks');
    const taskId = created(await call('asks'));
    const first = await until(taskId, 'input_required');
    expect(first.inputRequests).toEqual({
      'elicitation-0': {
        method: 'elicitation/create',
        params: { message: 'First?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
      },
    });
    const invalid = await task('tasks/update', { taskId, inputResponses: { 'elicitation-0': { action: 'maybe' } } });
    expect(invalid.body.error).toMatchObject({ code: -32602 });
    expect((await get(taskId)).status).toBe('input_required');
    const ack = await task('tasks/update', {
      taskId,
      inputResponses: { 'elicitation-0': { action: 'accept', content: { ok: true } }, 'not-asked': { whatever: 1 } },
    });
    expect(Object.keys(ack.body.result!).sort()).toEqual(['_meta', 'resultType']);
    expect(ack.body.result!.resultType).toBe('complete');
    const second = await waitFor(async () => {
      const now = await get(taskId);
      return (now.inputRequests as Result | undefined)?.again ? now : undefined;
    });
    expect(Object.keys(second.inputRequests as Result)).toEqual(['again']);
    await task('tasks/update', { taskId, inputResponses: { again: { action: 'decline' } } });
    expect((await until(taskId, 'completed')).result).toMatchObject({ content: [{ text: 'answers: accept decline' }] });
    expect(runs.get('asks')).toBe(1);
  });

  it('keeps the unanswered requests of a partial tasks/update', async () => {
    const taskId = created(await call('asksTwo'));
    await waitFor(async () => Object.keys(((await get(taskId)).inputRequests as Result | undefined) ?? {}).length === 2);
    await task('tasks/update', { taskId, inputResponses: { 'elicitation-0': { action: 'accept', content: { ok: true } } } });
    const left = await get(taskId);
    expect(left.status).toBe('input_required');
    expect(Object.keys(left.inputRequests as Result)).toEqual(['elicitation-1']);
    await task('tasks/update', { taskId, inputResponses: { 'elicitation-1': { action: 'cancel' } } });
    expect((await until(taskId, 'completed')).result).toMatchObject({ content: [{ text: 'both: accept cancel' }] });
  });

  it('asks a beforeTask request by multi round-trip, then creates the task on the retry', async () => {
    const round1 = (await call('asksFirst')).body.result!;
    expect(round1).toMatchObject({
      resultType: 'input_required',
      inputRequests: { user_name: { method: 'elicitation/create' } },
      requestState: expect.any(String),
    });
    expect(round1).not.toHaveProperty('taskId');
    const round2 = await postPerRequest(url, 'tools/call', {
      name: 'asksFirst',
      arguments: {},
      requestState: round1.requestState,
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
      _meta: withTasks(),
    });
    const taskId = created(round2);
    expect(round2.body.result).not.toHaveProperty('requestState');
    expect((await until(taskId, 'completed')).result).toMatchObject({ content: [{ text: 'hello Alice' }] });
  });

  it('cancels a task: the ack is empty, the handler is aborted, and a terminal task acks again', async () => {
    const taskId = created(await call('waits', { key: 'cancel-me' }));
    const ack = await task('tasks/cancel', { taskId });
    expect(ack.body.result!.resultType).toBe('complete');
    expect(ack.body.result).not.toHaveProperty('status');
    await waitFor(() => aborted.has('cancel-me'));
    expect((await get(taskId)).status).toBe('cancelled');
    expect((await task('tasks/cancel', { taskId })).body.result!.resultType).toBe('complete');
  });

  it('answers an unknown task with -32602, and checks Mcp-Name against the task id', async () => {
    expect((await task('tasks/get', { taskId: 'no-such-task' })).body.error).toMatchObject({ code: -32602 });
    const taskId = created(await call('waits', { key: 'named' }));
    const wrong = await task('tasks/get', { taskId }, withTasks(), { 'mcp-name': 'another-task' });
    expect({ status: wrong.status, code: wrong.body.error?.code }).toEqual({ status: 400, code: -32020 });
    gate('named').resolve();
    await until(taskId, 'completed');
  });

  it('finds no method in its handler table by the name of an Object.prototype member', async () => {
    for (const method of ['constructor', 'toString', 'hasOwnProperty']) {
      const reply = await task(method, {});
      expect({ method, status: reply.status, code: reply.body.error?.code }).toEqual({ method, status: 404, code: -32601 });
    }
  });
});

/** The same over a message transport (stdio's way), where tasks belong to the authenticated subject. */
describe('the tasks extension on a message transport', () => {
  let app: McpApplication;
  let nextId = 1;
  beforeEach(async () => (app = await McpApplication.create(PerRequestTasksModule, { logger: quiet })));
  afterEach(async () => {
    for (const g of gates.values()) g.resolve();
    await app.close();
  });

  const rpc = (t: RawTransport, method: string, params: Result) =>
    t.request({ id: nextId++, method, params: { ...params, _meta: withTasks() } });

  it('serves tasks/get to the subject that created the task only', async () => {
    const alice = new RawTransport();
    app.connect(alice, { auth: { subject: 'alice', scopes: [] } });
    const bob = new RawTransport();
    app.connect(bob, { auth: { subject: 'bob', scopes: [] } });
    const reply = await rpc(alice, 'tools/call', { name: 'asks', arguments: {} });
    const taskId = reply.result!.taskId as string;
    expect(reply.result).toMatchObject({ resultType: 'task', status: 'working' });
    await waitFor(async () => (await rpc(alice, 'tasks/get', { taskId })).result?.status === 'input_required');
    expect((await rpc(bob, 'tasks/get', { taskId })).error).toMatchObject({ code: -32602 });
    expect((await rpc(bob, 'tasks/cancel', { taskId })).error).toMatchObject({ code: -32602 });
    await rpc(alice, 'tasks/update', { taskId, inputResponses: { 'elicitation-0': { action: 'decline' } } });
    await rpc(alice, 'tasks/update', { taskId, inputResponses: { again: { action: 'decline' } } });
    await waitFor(async () => (await rpc(alice, 'tasks/get', { taskId })).result?.status === 'completed');
  });

  it("tells the owner's subscriptions/listen streams naming a task of its status, with the DetailedTask", async () => {
    const alice = new RawTransport();
    app.connect(alice, { auth: { subject: 'alice', scopes: [] } });
    const bob = new RawTransport();
    app.connect(bob, { auth: { subject: 'bob', scopes: [] } });
    const meta = { ...withTasks(), progressToken: 'p1', 'io.modelcontextprotocol/logLevel': 'debug' };
    const taskId = (await alice.request({ id: nextId++, method: 'tools/call', params: { name: 'asks', arguments: {}, _meta: meta } }))
      .result!.taskId as string;
    const listen = (t: RawTransport, id: string) =>
      t.deliver({ id, method: 'subscriptions/listen', params: { notifications: { taskIds: [taskId] }, _meta: withTasks() } });
    listen(alice, 'alice-listen');
    listen(bob, 'bob-listen');
    const acked = (t: RawTransport) => waitFor(() => t.sent.find((f) => f.method === 'notifications/subscriptions/acknowledged'));
    expect((await acked(alice)).params).toMatchObject({ notifications: { taskIds: [taskId] } });
    await acked(bob);
    const statuses = (t: RawTransport) => t.sent.filter((f) => f.method === 'notifications/tasks').map((f) => f.params!);
    await rpc(alice, 'tasks/update', { taskId, inputResponses: { 'elicitation-0': { action: 'accept', content: { ok: true } } } });
    await rpc(alice, 'tasks/update', { taskId, inputResponses: { again: { action: 'accept', content: { ok: false } } } });
    const done = await waitFor(() => statuses(alice).find((p) => p.status === 'completed'));
    expect(done).toMatchObject({
      taskId,
      result: { content: [{ text: 'answers: accept accept' }] },
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'alice-listen' },
    });
    expect(statuses(alice).some((p) => p.status === 'working')).toBe(true);
    expect(statuses(bob)).toEqual([]);
    // A client that did not declare the extension may not ask for task notifications.
    const undeclared = await alice.request({
      id: 'plain-listen',
      method: 'subscriptions/listen',
      params: { notifications: { taskIds: [taskId] }, _meta: envelope() },
    });
    expect(undeclared.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
    // Neither progress nor log messages of a task reach the client.
    expect(alice.sent.filter((f) => f.method === 'notifications/progress' || f.method === 'notifications/message')).toEqual([]);
  });
});

/** A store fault's timing the tests choose: the write of a task's input_required waits until released. */
describe('a task cancelled while its input_required status is being written', () => {
  const writing = deferred<void>();
  const release = deferred<void>();
  class SlowStatusStore extends InMemoryTaskStore {
    override async setStatus(taskId: string, owner: string, status: 'working' | 'input_required', message?: string) {
      if (status === 'input_required') {
        writing.resolve();
        await release.promise;
      }
      return super.setStatus(taskId, owner, status, message);
    }
  }

  it('ends the question the handler waits on, with no promise left to reject unhandled', async () => {
    const app = await McpApplication.create(PerRequestTasksModule, { logger: quiet, taskStore: SlowStatusStore });
    try {
      const url = (await app.listen(httpServer({ host: '127.0.0.1', port: 0 }))).url;
      const reply = await postPerRequest(url, 'tools/call', { name: 'asks', arguments: {}, _meta: withTasks() });
      const taskId = reply.body.result!.taskId as string;
      expect(reply.body.result).toMatchObject({ resultType: 'task', taskId: expect.any(String) });
      await writing.promise;
      // The handler's question is open, and its status is still being written: the cancellation aborts it.
      const cancel = await postPerRequest(url, 'tasks/cancel', { taskId, _meta: withTasks() });
      expect(cancel.body.error).toBeUndefined();
      release.resolve();
      const get = await postPerRequest(url, 'tasks/get', { taskId, _meta: withTasks() });
      expect(get.body.result).toMatchObject({ taskId, status: 'cancelled' });
    } finally {
      release.resolve();
      await app.close();
    }
  });
});
