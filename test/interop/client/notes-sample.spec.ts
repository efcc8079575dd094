import { McpClient, stdioClientTransport, streamableHttpClientTransport } from '../../../src/client';
import { HTTP_FIXTURE, SAMPLE_MAIN } from '../../helpers/paths';
import { spawnHttpServer } from '../../helpers/spawn-server';
import { waitFor } from '../../helpers/wait-for';

type Text = { content: { type: string; text: string }[]; isError?: boolean };

/** mcpkit's McpClient against mcpkit's own notes sample (dist), over both transports. */
describe.each([
  [
    'stdio',
    async () => ({
      transport: stdioClientTransport({
        command: process.execPath,
        args: [SAMPLE_MAIN, '--stdio', '--page-size=2'],
        stderr: 'pipe',
      }),
      url: undefined,
      stop: async () => {},
    }),
  ],
  [
    'Streamable HTTP',
    async () => {
      const server = await spawnHttpServer(SAMPLE_MAIN);
      return { transport: streamableHttpClientTransport(server.url), url: server.url, stop: server.stop };
    },
  ],
])('McpClient against the notes sample over %s', (name, open) => {
  let client: McpClient;
  let stop: () => Promise<void>;
  let url: string | undefined;
  const errors: Error[] = [];

  beforeAll(async () => {
    const opened = await open();
    ({ stop, url } = opened);
    client = new McpClient({ capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } });
    client.onerror = (e) => void errors.push(e);
    client.setRequestHandler('sampling/createMessage', async () => ({
      role: 'assistant',
      model: 'test-model',
      content: { type: 'text', text: 'short' },
    }));
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }));
    client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///home/me/notes', name: 'notes' }] }));
    await client.connect(opened.transport);
  });
  afterAll(async () => {
    await client.close();
    await stop();
  });

  it('initializes against mcpkit and pages every tool', async () => {
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo).toEqual({ name: 'notes', version: '1.0.0', title: 'Notes' });
    expect(client.instructions).toContain('Keeps notes');
    const tools = await client.listAll<{ name: string }>('tools/list', 'tools');
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['addNote', 'search', 'reindex', 'summarize', 'archive', 'workspaceRoots']),
    );
  });

  it('calls tools that sample, elicit and ask for roots, answered by the client handlers', async () => {
    expect((await client.request<Text>('tools/call', { name: 'summarize', arguments: { id: 'note-1' } })).content[0].text).toBe(
      'Summary (test-model): short',
    );
    expect((await client.request<Text>('tools/call', { name: 'archive', arguments: { id: 'note-2' } })).content[0].text).toBe(
      'Archived note-2',
    );
    expect((await client.request<Text>('tools/call', { name: 'workspaceRoots', arguments: {} })).content[0].text).toBe(
      'notes: file:///home/me/notes',
    );
  });

  it('gets progress, log messages and resource updates', async () => {
    const logs: unknown[] = [];
    client.onNotification('notifications/message', (p) => void logs.push(p.data));
    await client.request('logging/setLevel', { level: 'debug' });
    const progress: number[] = [];
    const result = await client.request<Text>(
      'tools/call',
      { name: 'reindex', arguments: { batches: 3, delayMs: 5 } },
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(result.content[0].text).toContain('3 batches');
    expect(progress).toEqual([1, 2, 3]);
    await waitFor(() => logs.some((l) => /^re-indexed \d+ notes$/.test(String(l))));

    const updates: unknown[] = [];
    client.onNotification('notifications/resources/updated', (p) => void updates.push(p.uri));
    await client.request('resources/subscribe', { uri: 'notes://index' });
    await client.request('tools/call', { name: 'addNote', arguments: { title: 'from McpClient', body: 'b' } });
    await waitFor(() => updates.includes('notes://index'), { what: 'notes://index updated' });
    const index = await client.request<{ contents: { text: string }[] }>('resources/read', { uri: 'notes://index' });
    expect(index.contents[0].text).toContain('from McpClient');
  });

  it('cancels a running tool', async () => {
    const controller = new AbortController();
    const call = client.request(
      'tools/call',
      { name: 'reindex', arguments: { batches: 100, delayMs: 200 } },
      { signal: controller.signal, onProgress: () => controller.abort('enough') },
    );
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(await client.request('ping')).toEqual({});
    expect(errors).toEqual([]);
  });

  if (name === 'Streamable HTTP') {
    it('ends the session with DELETE on close', async () => {
      const sessionId = client.sessionId!;
      expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
      await client.close();
      const res = await fetch(url!, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(res.status).toBe(404);
      await expect(client.request('ping')).rejects.toMatchObject({ code: -32000, message: 'Connection closed' });
    });
  }
});

/** A request whose SSE stream the server closes halfway (SSE polling) is resumed with GET + Last-Event-ID. */
describe('McpClient resuming a dropped response stream (mcpkit HTTP fixture)', () => {
  it('gets every progress and log event and the result, nothing twice', async () => {
    const server = await spawnHttpServer(HTTP_FIXTURE);
    const client = new McpClient();
    try {
      await client.connect(streamableHttpClientTransport(server.url));
      const logs: unknown[] = [];
      client.onNotification('notifications/message', (p) => void logs.push(p.data));
      await client.request('logging/setLevel', { level: 'info' });
      const seen: number[] = [];
      const result = await client.request<Text>(
        'tools/call',
        { name: 'dropHalfway', arguments: { events: 10 } },
        { onProgress: (p) => seen.push(p.progress) },
      );
      expect(result.content[0].text).toBe('sent 10');
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(logs).toEqual(Array.from({ length: 10 }, (_, i) => `log ${i + 1}`));
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
