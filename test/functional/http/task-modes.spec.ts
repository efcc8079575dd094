import { McpApplication } from '../../../src';
import { ACCEPT_BOTH, initializeBody } from '../../helpers/http-app';
import { SseReader } from '../../helpers/sse-client';
import { TaskModule } from '../../helpers/task-tools';
import { httpServer } from '../../../src/http';

const RELATED = 'io.modelcontextprotocol/related-task';

/** The task-result-streaming modes and input_required over raw Streamable HTTP (the SDK has no client for them). */
describe('task response modes over Streamable HTTP', () => {
  let app: McpApplication;
  let url: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    app = await McpApplication.create(TaskModule, { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
    ({ url } = await app.listen(httpServer({ port: 0, keepAliveMs: 0 })));
    const init = await fetch(url, {
      method: 'POST',
      headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json' },
      body: JSON.stringify({ ...initializeBody(), params: { ...initializeBody().params, capabilities: { elicitation: {} } } }),
    });
    headers = {
      accept: ACCEPT_BOTH,
      'content-type': 'application/json',
      'mcp-session-id': init.headers.get('mcp-session-id')!,
      'mcp-protocol-version': '2025-11-25',
    };
    await init.json();
  });
  afterAll(() => app.close());

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw JSON-RPC answers, checked field by field
  type Json = any;
  const post = (body: unknown) => fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = async (body: unknown): Promise<Json> => (await post(body)).json();
  const stream = (body: unknown) => SseReader.open(url, { method: 'POST', headers, body: JSON.stringify(body) });

  it('5. streams partial-content responses with the request id on the request SSE stream, ending with isComplete', async () => {
    const s = await stream({
      jsonrpc: '2.0',
      id: 'st-1',
      method: 'tools/call',
      params: { name: 'stream', arguments: { count: 4, gapMs: 15 }, task: { responseModes: ['streaming'] } },
    });
    expect(s.response.headers.get('content-type')).toBe('text/event-stream');
    await s.finished();
    const responses = s.messages as { id: string; result: Record<string, unknown> }[];
    expect(responses.every((m) => m.id === 'st-1')).toBe(true);
    expect(responses[0].result.task).toMatchObject({ status: 'working' });
    const seqNrs = responses.flatMap((r) => ((r.result['partial-content'] as { seqNr: number }[]) ?? []).map((p) => p.seqNr));
    expect(seqNrs).toEqual([1, 2, 3, 4]);
    expect(responses.at(-1)!.result).toMatchObject({ isComplete: true, isError: false });
    expect(s.events.filter((e) => e.data).every((e) => e.id !== undefined)).toBe(true);
    const taskId = (responses[0].result.task as { taskId: string }).taskId;
    const resumed = await json({ jsonrpc: '2.0', id: 'r-1', method: 'tasks/result', params: { taskId, lastSeqNr: 2 } });
    expect(resumed.result['partial-content'].map((p: { seqNr: number }) => p.seqNr)).toEqual([3, 4]);
  });

  it('1. answers immediate mode as plain JSON with the related task', async () => {
    const res = await post({
      jsonrpc: '2.0',
      id: 'im-1',
      method: 'tools/call',
      params: { name: 'quick', arguments: {}, task: { responseModes: ['immediate'] } },
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as Json;
    expect(body.result.content).toEqual([{ type: 'text', text: 'quick' }]);
    expect(body.result._meta[RELATED].taskId).toEqual(expect.any(String));
  });

  it('4. delivers a task request to the client on the waiting tasks/result stream, and resumes after the answer', async () => {
    const created = await json({
      jsonrpc: '2.0',
      id: 'ask-1',
      method: 'tools/call',
      params: { name: 'askLater', arguments: { ms: 150 }, task: {} },
    });
    const taskId = created.result.task.taskId;
    const waiting = await stream({ jsonrpc: '2.0', id: 'res-1', method: 'tasks/result', params: { taskId } });
    await waiting.waitFor((r) => r.messages.some((m) => m.method === 'elicitation/create'));
    const ask = waiting.messages.find((m) => m.method === 'elicitation/create') as { id: string; params: Record<string, unknown> };
    expect(ask.params._meta).toEqual({ [RELATED]: { taskId } });
    const status = await json({ jsonrpc: '2.0', id: 'g-1', method: 'tasks/get', params: { taskId } });
    expect(status.result.status).toBe('input_required');
    const answered = await post({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { approved: true } } });
    expect(answered.status).toBe(202);
    await waiting.finished();
    const final = waiting.messages.find((m) => m.id === 'res-1') as { result: Record<string, unknown> };
    expect(final.result).toMatchObject({ content: [{ type: 'text', text: 'approved=true' }], _meta: { [RELATED]: { taskId } } });
  });
});

describe('task ownership over Streamable HTTP with authentication', () => {
  it('lets an authenticated subject see its tasks from any of its sessions, and nobody else', async () => {
    const app = await McpApplication.create(TaskModule, {
      logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
    });
    const { url } = await app.listen(
      httpServer({
        port: 0,
        keepAliveMs: 0,
        authenticate: ({ headers }) => ({ subject: String(headers.authorization ?? '').replace('Bearer ', '') }),
      }),
    );
    const session = async (token: string) => {
      const init = await fetch(url, {
        method: 'POST',
        headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(initializeBody()),
      });
      await init.json();
      const h = {
        accept: ACCEPT_BOTH,
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'mcp-session-id': init.headers.get('mcp-session-id')!,
      };
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw JSON-RPC answers
      return async (body: unknown): Promise<any> => (await fetch(url, { method: 'POST', headers: h, body: JSON.stringify(body) })).json();
    };
    const alice1 = await session('alice');
    const alice2 = await session('alice');
    const bob = await session('bob');
    const created = await alice1({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'quick', arguments: {}, task: {} } });
    const taskId = created.result.task.taskId;
    expect((await alice2({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId } })).result.taskId).toBe(taskId);
    expect(
      (await alice2({ jsonrpc: '2.0', id: 3, method: 'tasks/list', params: {} })).result.tasks.map((t: { taskId: string }) => t.taskId),
    ).toEqual([taskId]);
    expect((await bob({ jsonrpc: '2.0', id: 4, method: 'tasks/get', params: { taskId } })).error.code).toBe(-32602);
    expect((await bob({ jsonrpc: '2.0', id: 5, method: 'tasks/list', params: {} })).result.tasks).toEqual([]);
    await app.close();
  });
});

describe('tasks over stateless HTTP', () => {
  it('lets any request holding the task id follow the task, and lists none', async () => {
    const app = await McpApplication.create(TaskModule, {
      logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
    });
    const { url } = await app.listen(httpServer({ port: 0, sessions: false }));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw JSON-RPC answers
    const post = async (body: unknown): Promise<any> =>
      (
        await fetch(url, {
          method: 'POST',
          headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json();
    const created = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait', arguments: { ms: 30 }, task: {} } });
    const taskId = created.result.task.taskId;
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'tasks/result', params: { taskId } })).result.content).toEqual([
      { type: 'text', text: 'waited 30' },
    ]);
    expect((await post({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { taskId } })).result.status).toBe('completed');
    expect((await post({ jsonrpc: '2.0', id: 4, method: 'tasks/list', params: {} })).result.tasks).toEqual([]);
    await app.close();
  });
});
