import { join } from 'node:path';
import { McpClient, streamableHttpClientTransport } from '../../../src/client';
import { farOverBothTransports, farStdio, PER_REQUEST_FAR_SERVER, SDK_FAR_SERVER } from '../../helpers/far-server';
import { ROOT } from '../../helpers/paths';
import { spawnHttpServer } from '../../helpers/spawn-server';
import { waitFor } from '../../helpers/wait-for';

const ERAS_SERVER = join(ROOT, 'dist', 'test', 'fixtures', 'eras-server.js');
type Text = { content: { type: string; text: string }[]; isError?: boolean };
const textOf = (r: unknown) => (r as Text).content.map((c) => c.text).join('');

function perRequestClient(era: 'per-request' | 'auto' = 'per-request') {
  const asked: string[] = [];
  const client = new McpClient({
    era,
    clientInfo: { name: 'mcpkit-per-request', version: '3.0.0' },
    capabilities: { elicitation: {}, sampling: {}, roots: {} },
  });
  client.setRequestHandler('elicitation/create', async (params) => {
    asked.push(`elicit:${String(params.message)}`);
    return { action: 'accept', content: { name: 'Zoe', ok: true } };
  });
  client.setRequestHandler('sampling/createMessage', async () => {
    asked.push('sample');
    return { role: 'assistant', content: { type: 'text', text: 'Oslo' }, model: 'm' };
  });
  client.setRequestHandler('roots/list', async () => {
    asked.push('roots');
    return { roots: [{ uri: 'file:///m' }] };
  });
  return { client, asked };
}

/** mcpkit's client in the 2026-07-28 era against an mcpkit server that serves only that era (spawned). */
describe.each(farOverBothTransports(PER_REQUEST_FAR_SERVER))('McpClient in the 2026-07-28 era over %s', (_name, open) => {
  let stop: () => Promise<void>;
  let c: ReturnType<typeof perRequestClient>;

  beforeAll(async () => {
    const far = await open();
    stop = far.stop;
    c = perRequestClient();
    const described = await c.client.connect(far.transport);
    expect(described).toMatchObject({ protocolVersion: '2026-07-28', supportedVersions: ['2026-07-28'], capabilities: { tools: {} } });
  });
  afterAll(async () => {
    await c?.client.close();
    await stop?.();
  });

  it('discovers the server, and sends every request with the envelope (and, over HTTP, the headers)', async () => {
    expect(c.client.era).toBe('per-request');
    expect(c.client.protocolVersion).toBe('2026-07-28');
    expect(c.client.sessionId).toBeUndefined();
    expect(c.client.serverInfo).toMatchObject({ name: 'eras-fixture' });
    const tools = await c.client.listAll<{ name: string }>('tools/list', 'tools');
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'grüße', 'askName', 'order', 'sleeper']));
    expect(JSON.parse(textOf(await c.client.request('tools/call', { name: 'whoami', arguments: {} })))).toEqual({
      version: '2026-07-28',
      client: 'mcpkit-per-request',
      subject: null,
    });
    expect(textOf(await c.client.request('tools/call', { name: 'grüße', arguments: { text: 'x' } }))).toBe('grüße, x');
    const read = await c.client.request<{ contents: unknown[] }>('resources/read', { uri: 'eras://items/7' });
    expect(read.contents).toEqual([{ uri: 'eras://items/7', mimeType: 'text/plain', text: 'item 7' }]);
  });

  it('answers input requests with its handlers and retries until the request completes', async () => {
    c.asked.length = 0;
    const result = await c.client.request('tools/call', { name: 'order', arguments: { tag: `per-request-${_name}` } });
    expect(result).not.toHaveProperty('resultType');
    expect(JSON.parse(textOf(result))).toEqual({ orderId: 'order-1', confirmed: true, sampled: 'Oslo', roots: ['file:///m'] });
    expect(c.asked).toEqual(['elicit:Confirm order-1?', 'sample', 'roots']);
    expect(
      JSON.parse(textOf(await c.client.request('tools/call', { name: 'seen', arguments: { tag: `per-request-${_name}` } }))),
    ).toMatchObject({ onceRuns: 1, handlerRuns: 4 });
  });

  it('receives progress', async () => {
    const seen: number[] = [];
    expect(
      textOf(
        await c.client.request('tools/call', { name: 'steps', arguments: { steps: 3 } }, { onProgress: (p) => void seen.push(p.progress) }),
      ),
    ).toBe('3 steps');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('cancels (HTTP: by dropping the request; stdio: notifications/cancelled)', async () => {
    const tag = `cancel-${_name}`;
    const abort = new AbortController();
    const call = c.client.request('tools/call', { name: 'sleeper', arguments: { tag } }, { signal: abort.signal });
    const seen = async () =>
      JSON.parse(textOf(await c.client.request('tools/call', { name: 'seen', arguments: { tag } }))) as {
        started: boolean;
        cancelled: boolean;
      };
    await waitFor(async () => (await seen()).started);
    abort.abort('enough');
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    await waitFor(async () => (await seen()).cancelled);
  });

  it('hears list changes on a subscriptions/listen stream, until it closes it', async () => {
    let changed = 0;
    const off = c.client.onNotification('notifications/tools/list_changed', () => void changed++);
    const sub = await c.client.listen({ toolsListChanged: true });
    expect(textOf(await c.client.request('tools/call', { name: 'touchTools', arguments: {} }))).toBe('touched');
    await waitFor(() => changed > 0);
    sub.close();
    off();
  });

  it('refuses to initialize a server that serves only the per-request era when asked for the handshake one', async () => {
    const far = await open();
    const handshake = new McpClient({ era: 'handshake' });
    await expect(handshake.connect(far.transport)).rejects.toMatchObject({ code: -32022 });
    await far.stop();
  });
});

describe('McpClient era auto', () => {
  it('is per-request with a dual server, and handshake with an SDK 1.x server', async () => {
    const dual = await spawnHttpServer(ERAS_SERVER);
    const a = perRequestClient('auto');
    await a.client.connect(streamableHttpClientTransport(dual.url));
    expect(a.client.era).toBe('per-request');
    expect(JSON.parse(textOf(await a.client.request('tools/call', { name: 'whoami', arguments: {} })))).toMatchObject({
      version: '2026-07-28',
    });
    await a.client.close();
    await dual.stop();
    const b = perRequestClient('auto');
    await b.client.connect(farStdio(SDK_FAR_SERVER, 'ignore'));
    expect(b.client.era).toBe('handshake');
    expect(b.client.protocolVersion).toBe('2025-11-25');
    expect(textOf(await b.client.request('tools/call', { name: 'askName', arguments: {} }))).toBe('hello Zoe');
    await b.client.close();
  });
});
