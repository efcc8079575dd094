import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { HTTP_FIXTURE } from '../helpers/paths';
import { spawnHttpServer } from '../helpers/spawn-server';
import { waitFor } from '../helpers/wait-for';

/** The official SDK client over Streamable HTTP against a real server process. */
describe('Streamable HTTP, official SDK client', () => {
  let server: Awaited<ReturnType<typeof spawnHttpServer>>;
  beforeAll(async () => (server = await spawnHttpServer(HTTP_FIXTURE)));
  afterAll(() => server.stop());

  async function connect(capabilities: ConstructorParameters<typeof Client>[1] = {}) {
    const client = new Client({ name: 'http-interop', version: '1.0.0' }, capabilities);
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 },
    });
    await client.connect(transport);
    return { client, transport };
  }

  it('runs a session from initialize to DELETE, after which the session is gone', async () => {
    const { client, transport } = await connect();
    const sessionId = transport.sessionId!;
    expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('addNote');
    await transport.terminateSession();
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(404);
    await client.close();
  });

  it('delivers progress and log messages on the request SSE stream', async () => {
    const { client } = await connect();
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    await client.setLoggingLevel('debug');
    const seen: Progress[] = [];
    const result = await client.callTool({ name: 'reindex', arguments: { batches: 3, delayMs: 5 } }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    expect((result.content as { text: string }[])[0].text).toContain('3 batches');
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(logs).toEqual([expect.stringMatching(/^re-indexed \d+ notes$/)]);
    await client.close();
  });

  it('gets elicitation, sampling and roots answered by the SDK client handlers', async () => {
    const { client } = await connect({ capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } });
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
      role: 'assistant',
      model: 'test-model',
      content: { type: 'text', text: `short version of ${String((req.params.messages[0].content as { text: string }).text.length)} chars` },
    }));
    const elicitations: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      elicitations.push(req.params);
      return { action: 'accept', content: { confirm: true } };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///home/me/notes', name: 'notes' }] }));

    const summary = await client.callTool({ name: 'summarize', arguments: { id: 'note-1' } });
    expect((summary.content as { text: string }[])[0].text).toMatch(/^Summary \(test-model\): short version of \d+ chars$/);

    const archived = await client.callTool({ name: 'archive', arguments: { id: 'note-2' } });
    expect((archived.content as { text: string }[])[0].text).toBe('Archived note-2');
    expect(elicitations[0]).toMatchObject({
      message: 'Archive "Groceries"?',
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', title: 'Archive it?', default: false } },
        required: ['confirm'],
      },
    });

    const roots = await client.callTool({ name: 'workspaceRoots', arguments: {} });
    expect((roots.content as { text: string }[])[0].text).toBe('notes: file:///home/me/notes');
    await client.close();
  });

  it('refuses a request to the client when the client did not declare the capability', async () => {
    const { client } = await connect();
    // A clear error, not a hang: a hang would run into the test timeout.
    const result = await client.callTool({ name: 'workspaceRoots', arguments: {} }).catch((e: { code: number; message: string }) => e);
    expect(result).toMatchObject({ code: -32600, message: expect.stringContaining('does not support roots') });
    await client.close();
  });

  it('resumes a dropped SSE connection with Last-Event-ID, losing and repeating nothing', async () => {
    const { client } = await connect();
    const logs: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
    const seen: number[] = [];
    const result = await client.callTool({ name: 'dropHalfway', arguments: { events: 10 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect((result.content as { text: string }[])[0].text).toBe('sent 10');
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(logs).toEqual(Array.from({ length: 10 }, (_, i) => `log ${i + 1}`));
    await client.close();
  });

  it('notifies subscribers of resource updates and every session of list changes, on the GET stream', async () => {
    const { client } = await connect();
    const other = await connect();
    const updates: string[] = [];
    const listChanged: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    other.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(`other:${n.params.uri}`));
    other.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged.push('other'));
    await client.subscribeResource({ uri: 'notes://index' });
    await client.callTool({ name: 'addNote', arguments: { title: 'sub', body: 'b' } });
    await waitFor(() => updates.includes('notes://index'));
    expect(updates).toEqual(['notes://index']); // the other session did not subscribe; notes://<id> nobody did
    await client.unsubscribeResource({ uri: 'notes://index' });
    await client.callTool({ name: 'addNote', arguments: { title: 'after unsubscribing', body: 'b' } });

    await client.callTool({ name: 'toggleTool', arguments: { name: 'count', enabled: false } });
    await waitFor(() => listChanged.length > 0);
    expect((await other.client.listTools()).tools.map((t) => t.name)).not.toContain('count');
    await expect(other.client.callTool({ name: 'count', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await client.callTool({ name: 'toggleTool', arguments: { name: 'count', enabled: true } });
    await waitFor(() => listChanged.length > 1);
    expect((await other.client.listTools()).tools.map((t) => t.name)).toContain('count');
    expect(updates).toEqual(['notes://index']);
    await client.close();
    await other.client.close();
  });
});
