import { McpClient } from '../../../src/client';
import { McpError } from '../../../src';
import { farOverBothTransports, openFarHttp, SDK_FAR_SERVER } from '../../helpers/far-server';
import { spawnHttpServer } from '../../helpers/spawn-server';
import { waitFor } from '../../helpers/wait-for';

type Text = { content: { type: string; text: string }[] };

/** mcpkit's McpClient against a server built with the official SDK 1.x, over both transports. */
describe.each([
  ...farOverBothTransports(SDK_FAR_SERVER),
  ["Streamable HTTP with Node's global fetch", () => openFarHttp(SDK_FAR_SERVER, { fetch: globalThis.fetch })],
])('McpClient against an SDK 1.x server over %s', (_name, open) => {
  let client: McpClient;
  let stop: () => Promise<void>;
  const errors: Error[] = [];
  const related: unknown[] = [];

  beforeAll(async () => {
    const opened = await open();
    stop = opened.stop;
    client = new McpClient({ clientInfo: { name: 'far-test', version: '0.0.1' }, capabilities: { elicitation: { form: {} } } });
    client.onerror = (e) => void errors.push(e);
    client.setRequestHandler(
      'elicitation/create',
      async (params, { relatedRequestId }) => (
        related.push(relatedRequestId),
        { action: 'accept', content: { name: `Ada (asked: ${String(params.message)})` } }
      ),
    );
    await client.connect(opened.transport);
  });
  afterAll(async () => {
    await client.close();
    await stop();
  });

  it('initializes and reports what the server said', () => {
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo).toEqual({ name: 'sdk-far', version: '1.2.3' });
    expect(client.instructions).toBe('A far server for the mcpkit client');
    expect(client.serverCapabilities).toMatchObject({ tools: { listChanged: true }, resources: {}, prompts: {}, completions: {} });
  });

  it('lists and calls tools, reads resources, gets prompts, completes template arguments', async () => {
    const tools = await client.listAll<{ name: string }>('tools/list', 'tools');
    expect(tools.map((t) => t.name)).toEqual([
      'touchReadme',
      'echo',
      'progress',
      'askName',
      'summarize',
      'listRoots',
      'chatty',
      'slow',
      'exit',
      'lastCancelled',
      'enableHidden',
    ]);
    expect(await client.request<Text>('tools/call', { name: 'echo', arguments: { text: 'hi' } })).toMatchObject({
      content: [{ type: 'text', text: 'echo: hi' }],
    });
    expect(await client.listAll('resources/list', 'resources')).toEqual([expect.objectContaining({ uri: 'far://readme', name: 'readme' })]);
    expect(await client.listAll('resources/templates/list', 'resourceTemplates')).toEqual([
      expect.objectContaining({ uriTemplate: 'far://items/{name}' }),
    ]);
    expect(await client.request('resources/read', { uri: 'far://items/kiwi' })).toEqual({
      contents: [{ uri: 'far://items/kiwi', text: 'item kiwi' }],
    });
    expect(await client.request('prompts/get', { name: 'greet', arguments: { name: 'Bob' } })).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'Please greet Bob' } }],
    });
    const completion = await client.request('completion/complete', {
      ref: { type: 'ref/resource', uri: 'far://items/{name}' },
      argument: { name: 'name', value: 'ap' },
    });
    expect(completion).toMatchObject({ completion: { values: ['apple', 'apricot'] } });
  });

  it('delivers progress to the request that asked for it', async () => {
    const seen: unknown[] = [];
    const result = await client.request<Text>(
      'tools/call',
      { name: 'progress', arguments: { steps: 3 } },
      { onProgress: (p) => seen.push(p) },
    );
    expect(result.content[0].text).toBe('did 3 steps');
    expect(seen).toEqual([1, 2, 3].map((i) => ({ progressToken: expect.anything(), progress: i, total: 3, message: `step ${i}` })));
  });

  it("answers the server's elicitation with the client's handler", async () => {
    const result = await client.request<Text>('tools/call', { name: 'askName', arguments: {} });
    expect(result.content[0].text).toBe('hello Ada (asked: Your name?)');
    // Over HTTP the elicitation rides the tools/call's SSE stream, so it names that request; stdio has no such link.
    expect(related).toEqual([_name === 'stdio' ? undefined : expect.any(Number)]);
  });

  it('cancels at the server when the signal aborts, and rejects with an AbortError', async () => {
    const controller = new AbortController();
    // The server's slow handler reports progress 0 once it runs: abort then, while the call is in flight there.
    const call = client.request(
      'tools/call',
      { name: 'slow', arguments: {} },
      { signal: controller.signal, onProgress: () => controller.abort('user gave up') },
    );
    await expect(call).rejects.toMatchObject({ name: 'AbortError', message: 'Request aborted: user gave up' });
    const last = await waitFor(async () => {
      const text = (await client.request<Text>('tools/call', { name: 'lastCancelled', arguments: {} })).content[0].text;
      return text === 'null' ? undefined : (JSON.parse(text) as { reason: string });
    });
    expect(last.reason).toBe('user gave up');
  });

  it('cancels at the server when a request times out, rejecting with McpError -32001', async () => {
    const call = client.request('tools/call', { name: 'slow', arguments: {} }, { timeoutMs: 150 });
    await expect(call).rejects.toMatchObject({ code: -32001, message: 'Request timed out after 150 ms' });
    await waitFor(async () =>
      (await client.request<Text>('tools/call', { name: 'lastCancelled', arguments: {} })).content[0].text.includes('Request timed out'),
    );
  });

  it('maps error responses to McpError with code, message and data', async () => {
    const error = await client.request('prompts/get', { name: 'nope' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32602, message: expect.stringContaining('nope') });
    await expect(client.request('no/such/method')).rejects.toMatchObject({ code: -32601 });
  });

  it('receives tools/list_changed when a tool enables another', async () => {
    let changed = 0;
    const off = client.onNotification('notifications/tools/list_changed', () => void changed++);
    await client.request('tools/call', { name: 'enableHidden', arguments: {} });
    await waitFor(() => changed > 0, { what: 'tools/list_changed' });
    off();
    expect((await client.listAll<{ name: string }>('tools/list', 'tools')).map((t) => t.name)).toContain('hidden');
    expect(await client.request<Text>('tools/call', { name: 'hidden', arguments: {} })).toMatchObject({ content: [{ text: 'found me' }] });
  });

  it('answers ping and reported no stray errors', async () => {
    expect(await client.request('ping')).toEqual({});
    expect(errors).toEqual([]);
  });
});

/** The official SDK's own client transports fit McpClient as they are. */
describe("McpClient over the official SDK's client transports", () => {
  it('works over the SDK StdioClientTransport and StreamableHTTPClientTransport', async () => {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const server = await spawnHttpServer(SDK_FAR_SERVER);
    try {
      for (const transport of [
        new StdioClientTransport({ command: process.execPath, args: [SDK_FAR_SERVER, '--stdio'], stderr: 'pipe' }),
        new StreamableHTTPClientTransport(new URL(server.url)),
      ]) {
        const client = new McpClient({ capabilities: { elicitation: { form: {} } } });
        client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
        await client.connect(transport);
        expect(client.serverInfo).toEqual({ name: 'sdk-far', version: '1.2.3' });
        expect((await client.request<Text>('tools/call', { name: 'askName', arguments: {} })).content[0].text).toBe('elicitation decline');
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });
});
