import type { JsonRpcResponse } from '../../../src';
import { connect } from '../../helpers/in-memory';
import { TaskModule } from '../../helpers/task-tools';

const RELATED = 'io.modelcontextprotocol/related-task';
type Result = Record<string, unknown> & {
  task?: { taskId: string; status: string };
  'partial-content'?: { seqNr: number; type: string; text: string }[];
};

/** The task-result-streaming proposal's test scenarios, server side, over the in-memory transport. */
describe('task response modes (SEP task-result-streaming)', () => {
  async function setup(options: Parameters<typeof connect>[1] = {}) {
    const env = await connect(TaskModule, options);
    let nextId = 0;
    /** Sends tools/call as a task and collects every response with its id until one is complete. */
    const call = async (name: string, args: Record<string, unknown>, task: Record<string, unknown>) => {
      const id = `call-${++nextId}`;
      const first = (await env.client.request('tools/call', { name, arguments: args, task }, id)) as Result;
      return { id, first, all: () => env.client.responses.filter((r) => r.id === id).map((r) => (r as { result: Result }).result) };
    };
    const completeFor = (id: string) =>
      env.client.waitForResponse((r: JsonRpcResponse) => r.id === id && 'result' in r && (r.result as Result).isComplete === true);
    return { ...env, call, completeFor };
  }

  it('1. immediate mode with results at hand: the full content, a completed task behind it', async () => {
    const { app, client, call } = await setup();
    const { first } = await call('quick', {}, { responseModes: ['immediate'] });
    expect(first.content).toEqual([{ type: 'text', text: 'quick' }]);
    expect(first).not.toHaveProperty('partial-content');
    const taskId = (first._meta as Record<string, { taskId: string }>)[RELATED].taskId;
    expect(await client.request('tasks/get', { taskId })).toMatchObject({ status: 'completed' });
    expect(await client.request('tasks/result', { taskId })).toMatchObject({ content: [{ type: 'text', text: 'quick' }] });
    await app.close();
  });

  it('2 and 14. task mode (asked for, or no modes at all): CreateTaskResult, then content from tasks/result', async () => {
    const { app, client, call } = await setup();
    for (const task of [{ responseModes: ['task'] }, {}]) {
      const { first } = await call('stream', { count: 3 }, task);
      expect(Object.keys(first)).toEqual(['task']);
      const result = await client.request('tasks/result', { taskId: first.task!.taskId });
      expect(result).toMatchObject({ content: ['segment 1', 'segment 2', 'segment 3'].map((text) => ({ type: 'text', text })) });
    }
    await app.close();
  });

  it('3. streaming, all results ready at once: one response with every segment and isComplete', async () => {
    const { app, call } = await setup();
    const { first, all } = await call('stream', { count: 2 }, { responseModes: ['streaming'] });
    expect(first).toMatchObject({ task: { status: 'completed' }, isComplete: true, isError: false });
    expect(first['partial-content']).toEqual([
      { seqNr: 1, type: 'text', text: 'segment 1' },
      { seqNr: 2, type: 'text', text: 'segment 2' },
    ]);
    expect(all()).toHaveLength(1);
    await app.close();
  });

  it('4, 12 and 15. streaming over several responses: seqNr from 1, each once, with the original id; the task completes', async () => {
    const { app, client, call, completeFor } = await setup();
    const { id, first, all } = await call('stream', { count: 4, gapMs: 15 }, { responseModes: ['streaming', 'task'] });
    expect(first.task).toMatchObject({ status: 'working' });
    await completeFor(id);
    const responses = all();
    expect(responses.length).toBeGreaterThanOrEqual(3);
    const seqNrs = responses.flatMap((r) => (r['partial-content'] ?? []).map((s) => s.seqNr));
    expect(seqNrs).toEqual([1, 2, 3, 4]);
    expect(responses.slice(0, -1).every((r) => r.isComplete !== true)).toBe(true);
    expect(responses.every((r) => (r._meta as Record<string, unknown>)[RELATED] !== undefined)).toBe(true);
    const taskId = first.task!.taskId;
    expect(await client.request('tasks/get', { taskId })).toMatchObject({ status: 'completed' });
    // tasks/result without lastSeqNr merges every segment into plain content.
    expect(await client.request('tasks/result', { taskId })).toMatchObject({
      content: [1, 2, 3, 4].map((i) => ({ type: 'text', text: `segment ${i}` })),
    });
    await app.close();
  });

  it('6 and 7. tasks/result with lastSeqNr resumes after it (gaps included), at once', async () => {
    const { app, client, call, completeFor } = await setup();
    const { id, first } = await call('stream', { count: 5, gapMs: 5 }, { responseModes: ['streaming'] });
    await completeFor(id);
    const taskId = first.task!.taskId;
    const from3 = (await client.request('tasks/result', { taskId, lastSeqNr: 3 })) as Result;
    expect(from3['partial-content']!.map((s) => s.seqNr)).toEqual([4, 5]);
    expect(from3).toMatchObject({ isComplete: true, _meta: { [RELATED]: { taskId } } });
    const from1 = (await client.request('tasks/result', { taskId, lastSeqNr: 1 })) as Result;
    expect(from1['partial-content']!.map((s) => s.seqNr)).toEqual([2, 3, 4, 5]);
    expect(await client.request('tasks/result', { taskId, lastSeqNr: 5 })).toMatchObject({ 'partial-content': [], isComplete: true });
    expect(await client.request('tasks/result', { taskId, lastSeqNr: 9 })).toMatchObject({ 'partial-content': [], isComplete: true });
    for (const bad of [0, -1, 1.5, '2']) {
      await expect(client.request('tasks/result', { taskId, lastSeqNr: bad })).rejects.toMatchObject({ code: -32602 });
    }
    await app.close();
  });

  it('answers lastSeqNr at the current end of a running stream with nothing and isComplete false', async () => {
    const { app, client, call, completeFor } = await setup();
    const { id, first } = await call('stream', { count: 3, gapMs: 60 }, { responseModes: ['streaming'] });
    const taskId = first.task!.taskId;
    await client.waitForResponse((r) => r.id === id && ((r as { result: Result }).result['partial-content'] ?? []).length > 0);
    const latest = (await client.request('tasks/result', { taskId, lastSeqNr: 1 })) as Result;
    expect(latest).toMatchObject({ 'partial-content': [], isComplete: false });
    await completeFor(id);
    await app.close();
  });

  it('8. immediate mode without results at hand falls back: to streaming for an incremental tool, else to a task', async () => {
    const { app, call, completeFor } = await setup({ tasks: { immediateWindowMs: 20 } });
    const slowPlain = await call('wait', { ms: 200 }, { responseModes: ['immediate', 'streaming', 'task'] });
    expect(Object.keys(slowPlain.first).sort()).toEqual(['_meta', 'task']);
    const slowStream = await call('stream', { count: 3, gapMs: 30 }, { responseModes: ['immediate', 'streaming'] });
    expect(slowStream.first.task).toMatchObject({ status: 'working' });
    await completeFor(slowStream.id);
    expect(slowStream.all().flatMap((r) => (r['partial-content'] ?? []).map((s) => s.seqNr))).toEqual([1, 2, 3]);
    const noStreaming = await call('stream', { count: 3, gapMs: 30 }, { responseModes: ['immediate', 'task'] });
    expect(Object.keys(noStreaming.first)).toEqual(['task']);
    await app.close();
  });

  it('9. ttl running out while streaming: nothing more is sent, the last response is complete, the task is gone', async () => {
    const { app, client, call, completeFor } = await setup({ tasks: { maxTtlMs: 60 } });
    const { id, first, all } = await call('stream', { count: 6, gapMs: 25 }, { responseModes: ['streaming'], ttl: 60 });
    await completeFor(id);
    const seqNrs = all().flatMap((r) => (r['partial-content'] ?? []).map((s) => s.seqNr));
    expect(seqNrs.length).toBeLessThan(6);
    expect(all().at(-1)).toMatchObject({ isComplete: true });
    await expect(client.request('tasks/get', { taskId: first.task!.taskId })).rejects.toMatchObject({
      code: -32602,
      message: 'Failed to retrieve task: Task has expired',
    });
    await app.close();
  });

  it('10. cancelling while streaming stops the segments and ends the stream; the task is cancelled', async () => {
    const { app, client, call, completeFor } = await setup();
    const { id, first, all } = await call('stream', { count: 20, gapMs: 20 }, { responseModes: ['streaming'] });
    const taskId = first.task!.taskId;
    await client.waitForResponse((r) => r.id === id && ((r as { result: Result }).result['partial-content'] ?? []).length > 0);
    await client.request('tasks/cancel', { taskId });
    const last = (await completeFor(id)) as { result: Result };
    expect(last.result.isComplete).toBe(true);
    expect(all().flatMap((r) => r['partial-content'] ?? []).length).toBeLessThan(20);
    expect(await client.request('tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
    await app.close();
  });

  it('11. a failure while streaming ends with isError and isComplete, and the task fails', async () => {
    const { app, client, call, completeFor } = await setup();
    const { id, first } = await call('stream', { count: 5, gapMs: 10, failAfter: 2 }, { responseModes: ['streaming'] });
    const last = (await completeFor(id)) as { result: Result };
    expect(last.result).toMatchObject({ isError: true, isComplete: true });
    expect(await client.request('tasks/get', { taskId: first.task!.taskId })).toMatchObject({
      status: 'failed',
      statusMessage: 'stream broke after 2',
    });
    // No segment at all before the failure: the error comes as plain content.
    const early = await call('stream', { count: 5, gapMs: 10, failAfter: 0 }, { responseModes: ['streaming'] });
    const lastEarly = early.first.isComplete ? { result: early.first } : ((await completeFor(early.id)) as { result: Result });
    expect(lastEarly.result).toMatchObject({ content: [{ type: 'text', text: 'stream broke after 0' }], isError: true, isComplete: true });
    await app.close();
  });

  it('13. modes the server does not know fall back to a task, saying so', async () => {
    const { app, call } = await setup();
    const { first } = await call('quick', {}, { responseModes: ['telepathy'] });
    expect(first).toMatchObject({
      task: { status: 'working', statusMessage: expect.stringContaining('not supported') },
      _meta: { 'io.modelcontextprotocol/fallback-mode': 'task' },
    });
    await app.close();
  });

  it('negotiates immediate > streaming > task whatever the order the client lists them in', async () => {
    const { app, call } = await setup();
    const { first } = await call('quick', {}, { responseModes: ['task', 'streaming', 'immediate'] });
    expect(first.content).toEqual([{ type: 'text', text: 'quick' }]);
    await app.close();
  });
});
