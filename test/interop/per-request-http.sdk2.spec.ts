import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { perRequestClient, perRequestPrimitiveSuite, NEGOTIATIONS, textOf } from '../helpers/per-request-client-suite';
import { ROOT } from '../helpers/paths';
import { sdk2 } from '../helpers/sdk2';
import { spawnHttpServer } from '../helpers/spawn-server';

const ERAS_SERVER = join(ROOT, 'dist', 'test', 'fixtures', 'eras-server.js');

/** One mcpkit process on one endpoint, driven by the official 2.x client (2026-07-28) and 1.x clients at once. */
describe('every client era against one HTTP server process', () => {
  let server: Awaited<ReturnType<typeof spawnHttpServer>>;
  beforeAll(async () => (server = await spawnHttpServer(ERAS_SERVER)));
  afterAll(() => server.stop());

  describe.each(NEGOTIATIONS)('SDK 2.x client, %s', (label, negotiation) => {
    let connected: ReturnType<typeof perRequestClient>;
    beforeAll(async () => {
      connected = perRequestClient(negotiation);
      await connected.client.connect(new sdk2.StreamableHTTPClientTransport(new URL(server.url)));
    });
    afterAll(() => connected.client.close());
    perRequestPrimitiveSuite(() => connected, `http-${label}`);
  });

  it('serves a 2.x client (2026-07-28) and a 1.x client (2025-11-25 session) side by side on one endpoint', async () => {
    const modern = perRequestClient(NEGOTIATIONS[1][1]);
    await modern.client.connect(new sdk2.StreamableHTTPClientTransport(new URL(server.url)));
    const legacy = new Client({ name: 'sdk1-interop', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {}, roots: {} } });
    legacy.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Bob', ok: false } }));
    legacy.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'Rome' },
      model: 'm',
    }));
    legacy.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///legacy', name: 'l' }] }));
    const handshakeTransport = new StreamableHTTPClientTransport(new URL(server.url));
    await legacy.connect(handshakeTransport);
    expect(handshakeTransport.sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect(legacy.getServerVersion()).toMatchObject({ name: 'eras-fixture', version: '2.0.0' });

    // Interleaved: each request is served in its own era.
    const [m, l] = await Promise.all([
      modern.client.callTool({ name: 'order', arguments: { tag: 'side-by-side-modern' } }),
      legacy.callTool({ name: 'order', arguments: { tag: 'side-by-side-legacy' } }),
    ]);
    expect(JSON.parse(textOf(m))).toEqual({ orderId: 'order-1', confirmed: true, sampled: 'Paris', roots: ['file:///work/a'] });
    expect(JSON.parse(textOf(l as { content: unknown }))).toEqual({
      orderId: 'order-1',
      confirmed: false,
      sampled: 'Rome',
      roots: ['file:///legacy'],
    });
    const handshakeSeen = JSON.parse(
      textOf((await legacy.callTool({ name: 'seen', arguments: { tag: 'side-by-side-legacy' } })) as { content: unknown }),
    );
    expect(handshakeSeen).toMatchObject({ handlerRuns: 1, onceRuns: 1 }); // requests to the client within one run
    expect(JSON.parse(textOf(await modern.client.callTool({ name: 'whoami', arguments: {} })))).toMatchObject({ version: '2026-07-28' });
    expect(JSON.parse(textOf((await legacy.callTool({ name: 'whoami', arguments: {} })) as { content: unknown }))).toEqual({
      version: '2025-11-25',
      client: 'sdk1-interop',
      subject: null,
    });
    await handshakeTransport.terminateSession();
    await Promise.all([legacy.close(), modern.client.close()]);
  });

  it('serves the 1.x SSEClientTransport (2024-11-05 HTTP+SSE) from the same process', async () => {
    const client = new Client({ name: 'sse-interop', version: '1.0.0' });
    await client.connect(new SSEClientTransport(new URL('/sse', server.url)));
    expect(textOf((await client.callTool({ name: 'echo', arguments: { text: 'old' } })) as { content: unknown })).toBe('echo: old');
    const who = JSON.parse(textOf((await client.callTool({ name: 'whoami', arguments: {} })) as { content: unknown }));
    expect(who).toMatchObject({ client: 'sse-interop' });
    expect(who.version).not.toBe('2026-07-28');
    expect((await client.readResource({ uri: 'eras://items/1' })).contents).toEqual([
      { uri: 'eras://items/1', mimeType: 'text/plain', text: 'item 1' },
    ]);
    await client.close();
  });
});
