import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { join } from 'node:path';
import { perRequestClient, perRequestPrimitiveSuite, NEGOTIATIONS, textOf } from '../helpers/per-request-client-suite';
import { ROOT } from '../helpers/paths';
import { sdk2 } from '../helpers/sdk2';
import { spawnHttpServer } from '../helpers/spawn-server';

const FETCH_SERVER = join(ROOT, 'dist', 'test', 'fixtures', 'eras-fetch-server.js');

/** A 2.x client in legacy mode (2025-11-25): it initializes a session (or, with sessions off, is served statelessly). */
async function handshakeClient(url: string) {
  const client = new sdk2.Client(
    { name: 'sdk2-legacy', version: '2.4.0' },
    { capabilities: { elicitation: {}, sampling: {}, roots: {} }, versionNegotiation: { mode: 'legacy' } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Bob', ok: false } }));
  client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'Rome' },
    model: 'm',
  }));
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///legacy', name: 'l' }] }));
  const transport = new sdk2.StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

/**
 * The fetch handler (app.fetchHandler) on a Node server, driven by the official SDK 2.x client in both
 * eras: the same endpoint as on Koa, and a server that loads no Koa.
 */
describe('the fetch handler on Node, with sessions', () => {
  let server: Awaited<ReturnType<typeof spawnHttpServer>>;
  beforeAll(async () => (server = await spawnHttpServer(FETCH_SERVER)));
  afterAll(() => server.stop());

  it('loaded no Koa', () => {
    expect(server.stderr()).toContain('koa modules loaded: 0');
  });

  describe.each(NEGOTIATIONS)('SDK 2.x client, %s', (label, negotiation) => {
    let connected: ReturnType<typeof perRequestClient>;
    beforeAll(async () => {
      connected = perRequestClient(negotiation);
      await connected.client.connect(new sdk2.StreamableHTTPClientTransport(new URL(server.url)));
    });
    afterAll(() => connected.client.close());
    perRequestPrimitiveSuite(() => connected, `fetch-${label}`);
  });

  it('serves a 2.x client in legacy mode (2025-11-25) in a session: requests to the client on the SSE answer, then DELETE', async () => {
    const { client, transport } = await handshakeClient(server.url);
    expect(transport.sessionId).toMatch(/^[0-9a-f]{32}$/);
    const order = await client.callTool({ name: 'order', arguments: { tag: 'fetch-legacy' } });
    expect(JSON.parse(textOf(order))).toEqual({ orderId: 'order-1', confirmed: false, sampled: 'Rome', roots: ['file:///legacy'] });
    expect(JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })))).toEqual({
      version: '2025-11-25',
      client: 'sdk2-legacy',
      subject: null,
    });
    await transport.terminateSession();
    await client.close();
  });

  it('serves the 1.x SSEClientTransport (2024-11-05 HTTP+SSE)', async () => {
    const client = new Client({ name: 'sse-interop', version: '1.0.0' });
    await client.connect(new SSEClientTransport(new URL('/sse', server.url)));
    expect(textOf((await client.callTool({ name: 'echo', arguments: { text: 'old' } })) as { content: unknown })).toBe('echo: old');
    await client.close();
  });
});

describe('the fetch handler on Node, sessions off (2025-11-25 stateless)', () => {
  let server: Awaited<ReturnType<typeof spawnHttpServer>>;
  beforeAll(async () => (server = await spawnHttpServer(FETCH_SERVER, { SESSIONS: 'false' })));
  afterAll(() => server.stop());

  it('serves a 2.x client in legacy mode (2025-11-25) with no session', async () => {
    const { client, transport } = await handshakeClient(server.url);
    expect(transport.sessionId).toBeUndefined();
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('echo: x');
    await client.close();
  });

  it('serves a 2.x client in the 2026-07-28 era', async () => {
    const { client } = perRequestClient(NEGOTIATIONS[0][1]);
    await client.connect(new sdk2.StreamableHTTPClientTransport(new URL(server.url)));
    expect(JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })))).toMatchObject({ version: '2026-07-28' });
    await client.close();
  });
});
