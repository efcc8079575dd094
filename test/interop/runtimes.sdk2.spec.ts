import { join } from 'node:path';
import { parseSummary, runConformance } from '../helpers/conformance';
import { perRequestClient, perRequestPrimitiveSuite, NEGOTIATIONS, textOf } from '../helpers/per-request-client-suite';
import { CONFORMANCE_NEXT_CLI, ROOT } from '../helpers/paths';
import { sdk2 } from '../helpers/sdk2';
import { spawnHttpServer } from '../helpers/spawn-server';

const SERVER = join(ROOT, 'dist', 'test', 'fixtures', 'runtime-server.js');
const BIN = join(ROOT, 'node_modules', '.bin');

/** Bun and Deno as the npm packages ship them (devDependencies); Deno reads the compiled CommonJS when told to detect it. */
const RUNTIMES: [string, { command: string; args: string[] }][] = [
  ['Bun', { command: join(BIN, 'bun'), args: [] }],
  ['Deno', { command: join(BIN, 'deno'), args: ['run', '--allow-all', '--unstable-detect-cjs'] }],
];

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
 * The fetch handler in the real runtimes, each serving with its own HTTP server (Bun.serve,
 * Deno.serve): the SDK 2.x client in both eras, sessions on and off, and the conformance suite at
 * the 2026-07-28 requirements.
 */
describe.each(RUNTIMES)('the fetch handler on %s', (name, runtime) => {
  describe('with sessions', () => {
    let server: Awaited<ReturnType<typeof spawnHttpServer>>;
    beforeAll(async () => (server = await spawnHttpServer(SERVER, {}, runtime)), 90_000);
    afterAll(() => server.stop());

    it(`runs on ${name}`, () => {
      expect(server.stderr()).toContain(`eras fixture on ${name.toLowerCase()} at`);
    });

    describe('SDK 2.x client, pinned to 2026-07-28', () => {
      let connected: ReturnType<typeof perRequestClient>;
      beforeAll(async () => {
        connected = perRequestClient(NEGOTIATIONS[0][1]);
        await connected.client.connect(new sdk2.StreamableHTTPClientTransport(new URL(server.url)));
      });
      afterAll(() => connected.client.close());
      perRequestPrimitiveSuite(() => connected, `${name}-modern`);
    });

    it('serves a 2.x client in legacy mode (2025-11-25) in a session: requests to the client on the SSE answer, then DELETE', async () => {
      const { client, transport } = await handshakeClient(server.url);
      expect(transport.sessionId).toMatch(/^[0-9a-f]{32}$/);
      const order = await client.callTool({ name: 'order', arguments: { tag: `${name}-legacy` } });
      expect(JSON.parse(textOf(order))).toEqual({ orderId: 'order-1', confirmed: false, sampled: 'Rome', roots: ['file:///legacy'] });
      await transport.terminateSession();
      await client.close();
    });
  });

  describe('sessions off', () => {
    let server: Awaited<ReturnType<typeof spawnHttpServer>>;
    beforeAll(async () => (server = await spawnHttpServer(SERVER, { SESSIONS: 'false' }, runtime)), 90_000);
    afterAll(() => server.stop());

    it('serves a 2.x client in legacy mode (2025-11-25) with no session, and one in the 2026-07-28 era', async () => {
      const { client, transport } = await handshakeClient(server.url);
      expect(transport.sessionId).toBeUndefined();
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('echo: x');
      await client.close();
      const modern = perRequestClient(NEGOTIATIONS[0][1]);
      await modern.client.connect(new sdk2.StreamableHTTPClientTransport(new URL(server.url)));
      expect(JSON.parse(textOf(await modern.client.callTool({ name: 'whoami', arguments: {} })))).toMatchObject({ version: '2026-07-28' });
      await modern.client.close();
    });
  });

  describe('conformance', () => {
    let server: Awaited<ReturnType<typeof spawnHttpServer>>;
    beforeAll(async () => (server = await spawnHttpServer(SERVER, { APP: 'conformance' }, runtime)), 90_000);
    afterAll(() => server.stop());

    it('0.2.0-alpha.12 at --requirements 2026-07-28: every scored scenario passes', async () => {
      // The DNS-rebinding scenario insists on a localhost URL.
      const url = `http://localhost:${server.port}/mcp`;
      const { output } = await runConformance(
        process.execPath,
        CONFORMANCE_NEXT_CLI,
        ['server', '--url', url, '--requirements', '2026-07-28', '--timeout', '20000'],
        110_000,
      );
      process.stdout.write(`${name}: ${output.slice(output.lastIndexOf('=== SUMMARY ==='))}\n`);
      const { scenarios, total } = parseSummary(output);
      expect(total).not.toBeNull();
      const scored = scenarios.filter((s) => s.scored);
      // As many as conformance.spec.ts pins on Node.
      expect(scored.length).toBe(37);
      expect(scored.filter((s) => !s.ok || s.failed > 0).map((s) => `${s.name} (${s.failed} failed)`)).toEqual([]);
    }, 120_000);
  });
});
