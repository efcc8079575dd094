import { join } from 'node:path';
import { ROOT } from '../helpers/paths';
import { RawStdioPeer } from '../helpers/raw-stdio';

const DIST = join(ROOT, 'dist');
/** test/fixtures/loaded-packages.ts: which of the packages mcpkit loads on first use this process loaded. */
const LOADED = JSON.stringify(join(DIST, 'test', 'fixtures', 'loaded-packages'));

/** Runs `script` (CommonJS) in a fresh Node and resolves with the first JSON line it prints. */
async function run(script: string): Promise<Record<string, string[]>> {
  const peer = new RawStdioPeer('', ['-e', script]);
  const line = await peer.next(() => true);
  await peer.exited;
  return line as Record<string, string[]>;
}

/**
 * A stdio server loads only what it uses: no HTTP front door (mcpkit/http, mcpkit/fetch and their code,
 * Koa), no mounting or proxying, no MCP client, no jose or ioredis (they come with mcpkit/auth and mcpkit/redis);
 * Ajv, OpenTelemetry's API, chokidar, MiniSearch and re2js load when an application first needs them. Checked in a real process, whose `require.cache` is Node's own.
 */
describe('the packages a stdio server loads', () => {
  it('answers a tools/call having loaded none of koa, ajv, jose, ioredis, @opentelemetry/api, chokidar, minisearch, re2js, nor its HTTP, composition or client code', async () => {
    const peer = new RawStdioPeer(join(DIST, 'test', 'fixtures', 'stdio-packages-server.js'));
    try {
      await peer.initialize();
      peer.send({ jsonrpc: '2.0', id: 'p', method: 'tools/call', params: { name: 'loaded', arguments: {} } });
      const answer = await peer.response('p');
      expect(JSON.parse((answer.result as { content: { text: string }[] }).content[0].text)).toEqual([]);
    } finally {
      peer.endInput();
      await peer.exited;
    }
  });

  it('loads koa with HTTP and ajv with a tool registered from a JSON Schema (the check above can see them)', async () => {
    const line = await run(`require('reflect-metadata');
      const { McpApplication, McpModule } = require(${JSON.stringify(join(DIST, 'src'))});
      const { loadedPackages } = require(${LOADED});
      class M {}
      McpModule({ server: { name: 'packages', version: '1.0.0' } })(M);
      (async () => {
        const app = await McpApplication.create(M, { logger: { error() {}, warn() {}, info() {} } });
        const before = loadedPackages();
        app.addTool({ name: 'schema', inputSchema: { type: 'object' }, handler: () => 'ok' });
        const { httpTransport } = require(${JSON.stringify(join(DIST, 'src', 'http'))});
        await httpTransport(app).close();
        const after = loadedPackages();
        await app.close();
        process.stdout.write(JSON.stringify({ before, after }) + '\\n');
      })();`);
    expect(line.before).toEqual([]);
    expect(line.after).toEqual(['ajv', 'koa']);
  });
});
