import { McpApplication } from '../../../src';
import { ACCEPT_BOTH, initializeBody } from '../../helpers/http-app';
import { SseReader } from '../../helpers/sse-client';
import { TaskModule } from '../../helpers/task-tools';
import { waitFor } from '../../helpers/wait-for';
import { httpServer } from '../../../src/http';

const RELATED = 'io.modelcontextprotocol/related-task';
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw JSON-RPC answers, checked field by field
type Json = any;

/**
 * Requests a task's handler makes to the client travel on the tasks/result that waits on the task,
 * identified by that request's own session and id (never by a bare id), and are held for a
 * tasks/result that arrives later.
 */
describe('routing a task’s requests to the client', () => {
  let app: McpApplication;
  let url: string;

  beforeAll(async () => {
    app = await McpApplication.create(TaskModule, {
      logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
      clientRequestTimeoutMs: 4_000,
    });
    ({ url } = await app.listen(
      httpServer({
        port: 0,
        keepAliveMs: 0,
        authenticate: ({ headers }) => ({ subject: String(headers.authorization ?? '').replace('Bearer ', '') }),
      }),
    ));
  });
  afterAll(() => app.close());

  /** A session of user `who` whose client supports form elicitation. */
  async function session(who: string) {
    const base = { accept: ACCEPT_BOTH, 'content-type': 'application/json', authorization: `Bearer ${who}` };
    const init = await fetch(url, {
      method: 'POST',
      headers: base,
      body: JSON.stringify({ ...initializeBody(), params: { ...initializeBody().params, capabilities: { elicitation: { form: {} } } } }),
    });
    await init.json();
    const headers = { ...base, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    return {
      post: (body: unknown) => fetch(url, { method: 'POST', headers, body: JSON.stringify(body) }),
      json: async (body: unknown): Promise<Json> => (await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })).json(),
      stream: (body: unknown) => SseReader.open(url, { method: 'POST', headers, body: JSON.stringify(body) }),
    };
  }

  const elicitations = (s: SseReader) => s.messages.filter((m) => m.method === 'elicitation/create') as { id: string; params: Json }[];

  it('sends it on the tasks/result of another session, not on a request of the task’s own session with the same id', async () => {
    const first = await session('ana');
    const second = await session('ana');
    const created = await first.json({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'askLater', arguments: { ms: 200 }, task: {} },
    });
    const taskId = created.result.task.taskId;
    // Request id 42 in flight in the first session, on an SSE stream (it reports progress).
    const unrelated = await first.stream({
      jsonrpc: '2.0',
      id: 42,
      method: 'tools/call',
      params: { name: 'wait', arguments: { ms: 1_000 }, _meta: { progressToken: 'p' } },
    });
    const waiting = await second.stream({ jsonrpc: '2.0', id: 42, method: 'tasks/result', params: { taskId } });
    await waiting.waitFor((r) => elicitations(r).length > 0);
    const [ask] = elicitations(waiting);
    expect(ask.params._meta).toEqual({ [RELATED]: { taskId } });
    expect((await second.post({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { approved: true } } })).status).toBe(202);
    await waiting.finished();
    expect(waiting.messages.find((m) => m.id === 42)).toMatchObject({ result: { content: [{ type: 'text', text: 'approved=true' }] } });
    await unrelated.finished();
    expect(elicitations(unrelated)).toEqual([]);
    expect(unrelated.messages.find((m) => m.id === 42)).toMatchObject({ result: { content: [{ type: 'text', text: 'waited 1000' }] } });
  });

  it('sends it on a tasks/result with an id no other request uses, in another session', async () => {
    const first = await session('bo');
    const second = await session('bo');
    const created = await first.json({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'askLater', arguments: { ms: 100 }, task: {} },
    });
    const taskId = created.result.task.taskId;
    const waiting = await second.stream({ jsonrpc: '2.0', id: 'unique-result', method: 'tasks/result', params: { taskId } });
    await waiting.waitFor((r) => elicitations(r).length > 0);
    const [ask] = elicitations(waiting);
    await second.post({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { approved: false } } });
    await waiting.finished();
    expect(waiting.messages.find((m) => m.id === 'unique-result')).toMatchObject({
      result: { content: [{ type: 'text', text: 'approved=false' }] },
    });
  });

  it('holds it for a tasks/result that comes after the client saw input_required (no GET stream open)', async () => {
    const client = await session('cy');
    const created = await client.json({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {}, task: {} } });
    const taskId = created.result.task.taskId;
    // The client polls tasks/get, as the spec says, until the task needs input.
    let polls = 0;
    await waitFor(
      async () =>
        (await client.json({ jsonrpc: '2.0', id: `g${++polls}`, method: 'tasks/get', params: { taskId } })).result.status ===
        'input_required',
    );
    const waiting = await client.stream({ jsonrpc: '2.0', id: 'late', method: 'tasks/result', params: { taskId } });
    await waiting.waitFor((r) => elicitations(r).length > 0);
    const [ask] = elicitations(waiting);
    expect(ask.params._meta).toEqual({ [RELATED]: { taskId } });
    await client.post({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { approved: true } } });
    await waiting.finished();
    expect(waiting.messages.find((m) => m.id === 'late')).toMatchObject({ result: { content: [{ type: 'text', text: 'approved=true' }] } });
    expect((await client.json({ jsonrpc: '2.0', id: 'g-end', method: 'tasks/get', params: { taskId } })).result.status).toBe('completed');
  });

  it('sends a held request once, even when two tasks/result requests wait', async () => {
    const client = await session('di');
    const created = await client.json({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'askLater', arguments: { ms: 150 }, task: {} },
    });
    const taskId = created.result.task.taskId;
    // A tasks/result answers with headers only once it streams (the elicitation) or ends: open both, await neither.
    const opening = [
      client.stream({ jsonrpc: '2.0', id: 'w1', method: 'tasks/result', params: { taskId } }),
      client.stream({ jsonrpc: '2.0', id: 'w2', method: 'tasks/result', params: { taskId } }),
    ];
    const carrier = await Promise.race(opening);
    await carrier.waitFor((r) => elicitations(r).length > 0);
    const [ask] = elicitations(carrier);
    await client.post({ jsonrpc: '2.0', id: ask.id, result: { action: 'decline' } });
    const [one, two] = await Promise.all(opening);
    await Promise.all([one.finished(), two.finished()]);
    expect([...elicitations(one), ...elicitations(two)]).toHaveLength(1);
    const carrierId = carrier === one ? 'w1' : 'w2';
    expect(carrier.messages.find((m) => m.id === carrierId)).toMatchObject({
      result: { content: [{ type: 'text', text: 'approved=false' }] },
    });
    expect((carrier === one ? two : one).response.status).toBe(200);
  });
});
