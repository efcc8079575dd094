import { TASK_STORE } from '../../../src';
import type { TaskStore } from '../../../src/stores';
import { McpTestClient } from '../../../src/testing';
import { connect } from '../../helpers/in-memory';
import { TaskModule, TaskTools } from '../../helpers/task-tools';
import { waitFor } from '../../helpers/wait-for';

type Task = {
  taskId: string;
  status: string;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number;
  pollInterval?: number;
};
const RELATED = 'io.modelcontextprotocol/related-task';

async function setup(options: Parameters<typeof connect>[1] = {}, clientOptions: Parameters<typeof connect>[2] = {}) {
  const env = await connect(TaskModule, options, clientOptions);
  const tools = env.app.get(TaskTools);
  const start = async (
    name: string,
    args: Record<string, unknown> = {},
    task: Record<string, unknown> = {},
    meta?: Record<string, unknown>,
  ) =>
    (await env.client.request('tools/call', { name, arguments: args, task, ...(meta ? { _meta: meta } : {}) })) as {
      task: Task;
      _meta?: Record<string, unknown>;
    };
  const status = (taskId: string) => env.client.request('tasks/get', { taskId }) as Promise<Task>;
  const result = (taskId: string, extra: Record<string, unknown> = {}) =>
    env.client.request('tasks/result', { taskId, ...extra }) as Promise<Record<string, unknown>>;
  return { ...env, tools, start, status, result };
}

describe('tasks (2025-11-25)', () => {
  it('declares the tasks capability with every mode, and taskSupport per tool', async () => {
    const { app, client } = await setup();
    expect((client.initializeResult as { capabilities: Record<string, unknown> }).capabilities.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
      responses: { modes: ['task', 'immediate', 'streaming'] },
    });
    const tools = (await client.request('tools/list')) as { tools: { name: string; execution?: unknown }[] };
    const byName = Object.fromEntries(tools.tools.map((t) => [t.name, t.execution]));
    expect(byName).toMatchObject({ wait: { taskSupport: 'optional' }, mustTask: { taskSupport: 'required' }, never: undefined });
    await app.close();
  });

  it('refuses a forbidden tool as a task and a required tool without one, with -32601', async () => {
    const { app, client, start } = await setup();
    await expect(start('never')).rejects.toMatchObject({ code: -32601 });
    await expect(client.request('tools/call', { name: 'mustTask', arguments: {} })).rejects.toMatchObject({ code: -32601 });
    const ok = await start('mustTask');
    expect(ok.task.status).toBe('working');
    await app.close();
  });

  it('answers at once with CreateTaskResult, caps the ttl, and runs the handler in the background', async () => {
    const { app, start, status, result } = await setup({ tasks: { maxTtlMs: 5_000, pollIntervalMs: 250 } });
    const created = await start('wait', { ms: 60 }, { ttl: 60_000 });
    expect(created.task).toEqual({
      taskId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'working',
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
      ttl: 5_000,
      pollInterval: 250,
    });
    expect(created._meta).toEqual({ 'io.modelcontextprotocol/model-immediate-response': 'Started waiting; I will report back.' });
    expect(new Date(created.task.createdAt).toISOString()).toBe(created.task.createdAt);
    expect((await status(created.task.taskId)).status).toBe('working');
    const final = await result(created.task.taskId);
    expect(final).toEqual({ content: [{ type: 'text', text: 'waited 60' }], _meta: { [RELATED]: { taskId: created.task.taskId } } });
    expect((await status(created.task.taskId)).status).toBe('completed');
    await app.close();
  });

  it('returns from tasks/result exactly what tools/call would have, including _meta and JSON-RPC errors', async () => {
    const { app, client, start, result, status } = await setup();
    const plain = await client.request('tools/call', { name: 'quick', arguments: {} });
    const quick = await start('quick');
    expect(await result(quick.task.taskId)).toEqual({ ...(plain as object), _meta: { mine: 1, [RELATED]: { taskId: quick.task.taskId } } });
    const bad = await start('protocolError');
    await expect(result(bad.task.taskId)).rejects.toMatchObject({ code: -32602, message: 'bad widget id', data: { id: 7 } });
    expect(await status(bad.task.taskId)).toMatchObject({ status: 'failed', statusMessage: 'bad widget id' });
    await app.close();
  });

  it('marks a task whose result isError as failed, with the message', async () => {
    const { app, start, result, status } = await setup();
    const t = await start('broken');
    expect(await result(t.task.taskId)).toMatchObject({ content: [{ type: 'text', text: 'the widget is broken' }], isError: true });
    expect(await status(t.task.taskId)).toMatchObject({ status: 'failed', statusMessage: 'the widget is broken' });
    await app.close();
  });

  it('blocks tasks/result until the task ends, woken by the store rather than a poll', async () => {
    const { app, start, result, status } = await setup();
    const t = await start('wait', { ms: 120 });
    const reads = jest.spyOn(app.get<TaskStore>(TASK_STORE), 'get');
    // It can only answer with the handler's own result once the handler has finished: it blocked.
    const final = await result(t.task.taskId);
    // One read before waiting and one per change (progress does not change the task): no polling.
    expect(reads.mock.calls.length).toBeLessThanOrEqual(3);
    reads.mockRestore();
    expect(final.content).toEqual([{ type: 'text', text: 'waited 120' }]);
    expect((await status(t.task.taskId)).status).toBe('completed');
    await app.close();
  });

  it('sends notifications/tasks/status on every transition, and progress with the original token until the end', async () => {
    const { app, client, start, result } = await setup();
    const t = await start('wait', { ms: 40 }, {}, { progressToken: 'p-1' });
    await result(t.task.taskId);
    const statuses = client.notifications.filter((n) => n.method === 'notifications/tasks/status').map((n) => n.params);
    expect(statuses).toEqual([expect.objectContaining({ taskId: t.task.taskId, status: 'completed', ttl: expect.any(Number) })]);
    const progress = client.notifications.filter((n) => n.method === 'notifications/progress').map((n) => n.params);
    expect(progress.map((p) => p?.progress)).toEqual([0, 1, 2]);
    expect(progress.every((p) => p?.progressToken === 'p-1' && (p._meta as Record<string, unknown>)[RELATED] !== undefined)).toBe(true);
    await app.close();
  });

  it('cancels: cancelled before the answer, the handler aborted, and it stays cancelled', async () => {
    const { app, client, start, status, result, tools } = await setup();
    const t = await start('wait', { ms: 500 });
    const cancelled = (await client.request('tasks/cancel', { taskId: t.task.taskId })) as Task;
    expect(cancelled).toMatchObject({ taskId: t.task.taskId, status: 'cancelled' });
    await waitFor(() => tools.aborted.length > 0, { what: 'the handler to be aborted' });
    expect(tools.aborted).toHaveLength(1);
    const stubborn = await start('stubborn', { ms: 60 });
    await client.request('tasks/cancel', { taskId: stubborn.task.taskId });
    await waitFor(() => tools.finishedAfterCancel > 0, { what: 'the stubborn handler to finish' });
    expect(tools.finishedAfterCancel).toBe(1);
    expect((await status(stubborn.task.taskId)).status).toBe('cancelled');
    expect(await result(stubborn.task.taskId)).toMatchObject({ isError: true });
    await expect(client.request('tasks/cancel', { taskId: stubborn.task.taskId })).rejects.toMatchObject({
      code: -32602,
      message: "Cannot cancel task: already in terminal status 'cancelled'",
    });
    const statuses = client.notifications.filter((n) => n.method === 'notifications/tasks/status').map((n) => n.params?.status);
    expect(statuses).toEqual(['cancelled', 'cancelled']);
    await app.close();
  });

  it('answers unknown and expired task ids with -32602 and the spec messages', async () => {
    const { app, client, start } = await setup({ tasks: { maxTtlMs: 30 } });
    await expect(client.request('tasks/get', { taskId: 'nope' })).rejects.toMatchObject({
      code: -32602,
      message: 'Failed to retrieve task: Task not found',
    });
    await expect(client.request('tasks/result', { taskId: 'nope' })).rejects.toMatchObject({ code: -32602 });
    await expect(client.request('tasks/cancel', { taskId: 'nope' })).rejects.toMatchObject({ code: -32602 });
    await expect(client.request('tasks/get', {})).rejects.toMatchObject({ code: -32602 });
    const t = await start('quick', {}, { ttl: 30 });
    const get = () => client.request('tasks/get', { taskId: t.task.taskId });
    await waitFor(
      () =>
        get().then(
          () => false,
          () => true,
        ),
      { what: 'the task to expire' },
    );
    await expect(get()).rejects.toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task has expired' });
    await app.close();
  });

  it('lists tasks page by page, scoped to the owner', async () => {
    const env = await setup({ pageSize: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await env.start('quick')).task.taskId);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await env.client.request('tasks/list', cursor ? { cursor } : {})) as { tasks: Task[]; nextCursor?: string };
      expect(page.tasks.length).toBeLessThanOrEqual(2);
      seen.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    await expect(env.client.request('tasks/list', { cursor: 'bogus!' })).rejects.toMatchObject({ code: -32602 });

    const other = await McpTestClient.connect(env.app.connectInMemory());
    expect(await other.request('tasks/list')).toEqual({ tasks: [] });
    await expect(other.request('tasks/get', { taskId: ids[0] })).rejects.toMatchObject({
      code: -32602,
      message: 'Failed to retrieve task: Task not found',
    });
    await expect(other.request('tasks/cancel', { taskId: ids[0] })).rejects.toMatchObject({ code: -32602 });
    await expect(other.request('tasks/result', { taskId: ids[0] })).rejects.toMatchObject({ code: -32602 });
    await env.app.close();
  });

  it('limits running tasks per owner', async () => {
    const { app, start } = await setup({ tasks: { maxActivePerOwner: 2 } });
    await start('wait', { ms: 200 });
    await start('wait', { ms: 200 });
    await expect(start('wait', { ms: 200 })).rejects.toMatchObject({ code: -32600, message: expect.stringContaining('at most 2') });
    await app.close();
  });

  it('moves to input_required while the handler asks the client, with related-task _meta, then back to working', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { app, client, start, status, result } = await setup(
      {},
      {
        capabilities: { elicitation: {} },
        handlers: {
          'elicitation/create': async () => {
            await gate;
            return { action: 'accept', content: { approved: true } };
          },
        },
      },
    );
    const t = await start('ask');
    await client.waitForNotification((n) => n.method === 'notifications/tasks/status' && n.params?.status === 'input_required');
    expect((await status(t.task.taskId)).status).toBe('input_required');
    expect(client.serverRequests[0]).toMatchObject({
      method: 'elicitation/create',
      params: { _meta: { [RELATED]: { taskId: t.task.taskId } } },
    });
    release();
    expect((await result(t.task.taskId)).content).toEqual([{ type: 'text', text: 'approved=true' }]);
    const statuses = client.notifications.filter((n) => n.method === 'notifications/tasks/status').map((n) => n.params?.status);
    expect(statuses).toEqual(['input_required', 'working', 'completed']);
    await app.close();
  });

  it('uses cryptographically random, distinct task ids', async () => {
    const { app, start } = await setup();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await start('quick')).task.taskId);
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await app.close();
  });
});
