import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSummary, runConformance } from '../helpers/conformance';
import { perRequestClient, NEGOTIATIONS, textOf } from '../helpers/per-request-client-suite';
import { CONFORMANCE_NEXT_CLI, ROOT } from '../helpers/paths';
import { sdk2 } from '../helpers/sdk2';
import { bundleWorker, startWorkerd } from '../helpers/workerd';

/**
 * mcpkit as a Cloudflare Worker: bundled by esbuild into one ES module and run by workerd (the npm
 * package's binary), stateless. The fixture is bundled from its TypeScript source (no decorator
 * metadata: its classes are named); the conformance sample from tsc's output.
 */
describe('the fetch handler in workerd (Cloudflare Workers)', () => {
  const dirs: string[] = [];
  const outDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-worker-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  describe('a worker bundled from TypeScript by esbuild', () => {
    let bundle: Awaited<ReturnType<typeof bundleWorker>>;
    let worker: Awaited<ReturnType<typeof startWorkerd>>;
    beforeAll(async () => {
      bundle = await bundleWorker(join(ROOT, 'test', 'fixtures', 'worker', 'worker.ts'), outDir());
      worker = await startWorkerd(bundle.path);
    }, 60_000);
    afterAll(() => worker?.stop());

    it('bundles no Koa and no Node HTTP server', () => {
      expect(bundle.inputs.filter((input) => /node_modules\/(koa|@koa|raw-body)\//.test(input))).toEqual([]);
      expect(bundle.inputs.filter((input) => /src\/transports\/http\/(koa-|streamable-http)/.test(input))).toEqual([]);
    });

    it('serves the SDK 2.x client in the 2026-07-28 era: tools, a streamed answer with progress and logs, prompts', async () => {
      const { client } = perRequestClient(NEGOTIATIONS[0][1], 'sdk2-workerd');
      await client.connect(new sdk2.StreamableHTTPClientTransport(new URL(worker.url)));
      expect(client.getProtocolEra()).toBe('modern');
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['chatty', 'echo', 'whereami']);
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'héllo' } }))).toBe('echo: héllo');
      const invalid = await client.callTool({ name: 'echo', arguments: { text: 42 } });
      expect(invalid.isError).toBe(true);
      const where = JSON.parse(textOf(await client.callTool({ name: 'whereami', arguments: {} })));
      expect(where).toEqual({ version: '2026-07-28', userAgent: 'Cloudflare-Workers', designTypes: 'none' });
      const progress: number[] = [];
      const chatty = await client.callTool(
        { name: 'chatty', arguments: { _meta: undefined } },
        { onprogress: (p: { progress: number }) => progress.push(p.progress) },
      );
      expect(textOf(chatty)).toBe('chatty');
      expect(progress).toEqual([1]);
      const prompt = await client.getPrompt({ name: 'write', arguments: { topic: 'tea' } });
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Write about tea.' } }]);
      await client.close();
    });

    it('serves the SDK 2.x client in legacy mode (2025-11-25), statelessly', async () => {
      const client = new sdk2.Client({ name: 'sdk2-legacy', version: '2.4.0' }, { versionNegotiation: { mode: 'legacy' } });
      const transport = new sdk2.StreamableHTTPClientTransport(new URL(worker.url));
      await client.connect(transport);
      expect(transport.sessionId).toBeUndefined();
      expect(JSON.parse(textOf(await client.callTool({ name: 'whereami', arguments: {} })))).toMatchObject({ version: '2025-11-25' });
      await client.close();
    });
  });

  describe('samples/conformance bundled from tsc output', () => {
    let worker: Awaited<ReturnType<typeof startWorkerd>>;
    beforeAll(async () => {
      const bundle = await bundleWorker(join(ROOT, 'dist', 'test', 'fixtures', 'worker', 'conformance-worker.js'), outDir());
      worker = await startWorkerd(bundle.path);
    }, 60_000);
    afterAll(() => worker?.stop());

    it('0.2.0-alpha.12 at --requirements 2026-07-28: every scored scenario passes', async () => {
      // The DNS-rebinding scenario insists on a localhost URL.
      const url = `http://localhost:${worker.port}/mcp`;
      const { output } = await runConformance(
        process.execPath,
        CONFORMANCE_NEXT_CLI,
        ['server', '--url', url, '--requirements', '2026-07-28', '--timeout', '20000'],
        110_000,
      );
      process.stdout.write(`workerd: ${output.slice(output.lastIndexOf('=== SUMMARY ==='))}\n`);
      const { scenarios, total } = parseSummary(output);
      expect(total).not.toBeNull();
      const scored = scenarios.filter((s) => s.scored);
      expect(scored.length).toBe(37);
      expect(scored.filter((s) => !s.ok || s.failed > 0).map((s) => `${s.name} (${s.failed} failed)`)).toEqual([]);
    }, 120_000);
  });
});
