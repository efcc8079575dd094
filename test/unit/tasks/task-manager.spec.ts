import type { McpContext } from '../../../src';
import { InMemoryTaskStore } from '../../../src/stores';
import type { RequestId } from '../../../src/mcp/json-rpc';
import type { Outbound, PeerState } from '../../../src/protocol/peer';
import type { RequestScope } from '../../../src/protocol/request-scope';
import { Call } from '../../../src/protocol/pipeline/call';
import { toolResultStep } from '../../../src/protocol/pipeline/tool.steps';
import type { ToolDescriptor } from '../../../src/registry/descriptors';
import { RequestContext } from '../../../src/protocol/request-context';
import { TaskManager } from '../../../src/tasks/task-manager';
import { waitFor } from '../../helpers/wait-for';
import { resolveTaskOptions } from '../../../src/tasks/task-options';

/** A handler answers with a value or a promise of one. */
type Handler = (ctx: McpContext) => unknown;

/** An outbound port that records what it sends and answers client requests with `answer`. */
function fakeOutbound(reachable = true, answer: (method: string) => unknown = () => ({ action: 'accept', content: {} })) {
  const sent: { kind: 'notify' | 'request'; method: string; related?: RequestId }[] = [];
  const outbound: Outbound = {
    reachable,
    notify: async (method, _params, related) => void sent.push({ kind: 'notify', method, related }),
    request: async (method, _params, options) => (
      sent.push({ kind: 'request', method, related: options?.relatedRequestId }),
      answer(method)
    ),
    sendIntermediateResult: async () => undefined,
  };
  return { outbound, sent };
}

function scope(id: RequestId, outbound: Outbound, owner = 'ses:1', params: Record<string, unknown> = {}): RequestScope {
  const controller = new AbortController();
  const peer: PeerState = { protocolVersion: '2025-11-25', clientCapabilities: { elicitation: { form: {} } } };
  const s: RequestScope = {
    id,
    method: 'tools/call',
    params,
    peer,
    outbound,
    owner,
    signal: controller.signal,
    cancelled: false,
    abortHandler: (reason) => controller.abort(reason),
    extra: undefined,
    context: () => new RequestContext(s),
  };
  return s;
}

function tool(name: string): ToolDescriptor {
  return {
    kind: 'tool',
    provider: name,
    method: name,
    where: `T.${name}`,
    contextFirst: true,
    name,
    definition: { name, inputSchema: { type: 'object' } },
    taskSupport: 'optional',
    streaming: false,
    access: { kind: 'tool', name, scopes: [], guards: [], public: false, middleware: [], restricted: false },
  };
}

function setup(handlers: Record<string, Handler>, options: Parameters<typeof resolveTaskOptions>[0] = {}) {
  const errors: string[] = [];
  const store = new InMemoryTaskStore();
  const manager = new TaskManager(store, resolveTaskOptions(options), (m) => errors.push(m), 1_000);
  // The rest of a tool's pipeline after its task boundary: the result stage, then the handler.
  const run = (call: Call) =>
    toolResultStep(call.ref as ToolDescriptor, (m) => errors.push(m), { expose: false, warnOnce: () => undefined })(call, async () =>
      handlers[call.ref.method](call.context),
    );
  const start = async (name: string, origin: RequestScope, task: Record<string, unknown> = {}) => {
    const descriptor = tool(name);
    return (await manager.callTool(descriptor, task, new Call(descriptor, origin, name, {}), run)) as {
      task: { taskId: string; status: string };
    };
  };
  return { manager, store, start, errors };
}

describe('TaskManager', () => {
  it('answers a task-augmented call with the task at once and records the outcome tools/call would have had', async () => {
    let finish!: () => void;
    const { manager, start } = setup({ work: () => new Promise((r) => (finish = () => r('done'))) });
    const { outbound, sent } = fakeOutbound();
    const created = await start('work', scope(1, outbound));
    expect(created.task.status).toBe('working');
    const taskId = created.task.taskId;
    expect(await manager.get(taskId, scope(2, outbound))).toMatchObject({ taskId, status: 'working' });
    const result = manager.result(taskId, undefined, scope(3, outbound));
    finish();
    expect(await result).toMatchObject({
      content: [{ type: 'text', text: 'done' }],
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    });
    expect(await manager.get(taskId, scope(4, outbound))).toMatchObject({ status: 'completed' });
    expect(sent.filter((m) => m.method === 'notifications/tasks/status')).toHaveLength(1);
  });

  it('scopes tasks to their owner', async () => {
    const { manager, start } = setup({ work: () => 'done' });
    const { outbound } = fakeOutbound();
    const { task } = await start('work', scope(1, outbound, 'ses:a'));
    await expect(manager.get(task.taskId, scope(2, outbound, 'ses:b'))).rejects.toMatchObject({
      code: -32602,
      message: 'Failed to retrieve task: Task not found',
    });
    expect(await manager.list(undefined, 10, scope(3, outbound, 'ses:b'))).toEqual({ tasks: [] });
    expect((await manager.list(undefined, 10, scope(3, outbound, 'ses:a'))).tasks).toHaveLength(1);
    expect(await manager.list(undefined, 10, scope(4, outbound, 'anonymous'))).toEqual({ tasks: [] });
  });

  it('refuses more active tasks per owner than allowed, with the limit in the message', async () => {
    const { start } = setup({ hang: () => new Promise(() => undefined) }, { maxActivePerOwner: 1 });
    const { outbound } = fakeOutbound();
    await start('hang', scope(1, outbound));
    await expect(start('hang', scope(2, outbound))).rejects.toMatchObject({
      code: -32600,
      message: 'Too many tasks in progress: at most 1 at a time',
    });
  });

  it('cancels: the status is cancelled before the answer, the handler’s signal aborts, and it stays cancelled', async () => {
    let signal!: AbortSignal;
    const { manager, start, errors } = setup({
      hang: (ctx) => (
        (signal = ctx.signal),
        new Promise((_r, reject) =>
          ctx.signal.addEventListener('abort', () =>
            reject(ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error(String(ctx.signal.reason))),
          ),
        )
      ),
    });
    const { outbound } = fakeOutbound();
    const { task } = await start('hang', scope(1, outbound));
    await waitFor(() => signal !== undefined);
    expect(await manager.cancel(task.taskId, scope(2, outbound))).toMatchObject({ status: 'cancelled' });
    expect(signal.aborted).toBe(true);
    // The handler's rejection is recorded after the cancellation: the task stays cancelled.
    await waitFor(() => errors.length === 0 && !manager['engine'].runsHere(task.taskId));
    expect(await manager.get(task.taskId, scope(3, outbound))).toMatchObject({ status: 'cancelled' });
    await expect(manager.cancel(task.taskId, scope(4, outbound))).rejects.toMatchObject({ code: -32602 });
  });

  it('is input_required while the handler waits for the client, and sends the request on a waiting tasks/result', async () => {
    let answer!: (v: unknown) => void;
    const { manager, start } = setup({
      ask: async (ctx) => (await ctx.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } })).action,
    });
    const origin = fakeOutbound(false);
    const carrier = fakeOutbound(true, () => new Promise((r) => (answer = r)));
    const { task } = await start('ask', scope(1, origin.outbound));
    await waitFor(async () => ((await manager.get(task.taskId, scope(2, origin.outbound))).status as string) === 'input_required');
    // Nothing reached the client yet: its connection does not reach it, and no tasks/result waits.
    expect(origin.sent.filter((m) => m.kind === 'request')).toEqual([]);
    const result = manager.result(task.taskId, undefined, scope('wait', carrier.outbound));
    await waitFor(() => answer !== undefined);
    expect(carrier.sent.filter((m) => m.kind === 'request')).toEqual([{ kind: 'request', method: 'elicitation/create', related: 'wait' }]);
    answer({ action: 'decline' });
    expect(await result).toMatchObject({ content: [{ type: 'text', text: 'decline' }] });
    const statuses = origin.sent.filter((m) => m.method === 'notifications/tasks/status').length;
    expect(statuses).toBe(3); // input_required, working, completed
  });

  it('fails a request held for a tasks/result that never comes, after the client request timeout', async () => {
    const { manager, start } = setup({
      ask: async (ctx) =>
        (await ctx.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } }, { timeoutMs: 20 })).action,
    });
    const { outbound } = fakeOutbound(false);
    const { task } = await start('ask', scope(1, outbound));
    await waitFor(async () => ((await manager.get(task.taskId, scope(2, outbound))).status as string) === 'failed');
    const done = await manager.get(task.taskId, scope(3, outbound));
    expect(done.statusMessage).toMatch(/timed out after 20 ms/);
  });
});
