import { join } from 'node:path';
import { ROOT } from '../helpers/paths';
import { RawStdioPeer } from '../helpers/raw-stdio';

const DIST = join(ROOT, 'dist');
/** test/fixtures/stdio-unused.ts: what of the modules a stdio server does not use this process loaded. */
const UNUSED = JSON.stringify(join(DIST, 'test', 'fixtures', 'stdio-unused'));

/**
 * mcpkit's own modules a stdio server (test/fixtures/stdio-weight-server.ts) may have loaded once it answered a
 * tools/call: 123 when start-up was trimmed, 128 with the synchronous call path merged beside it (maybe-promise,
 * the validation fast check among them), 122 with the in-memory task store, URI templates, composition, the
 * views' checks and runtime registration loaded on first use. The list of modules it must not load is the sharper check.
 */
const MODULE_BUDGET = 122;

/** Runs `script` (CommonJS) in a fresh Node and resolves with the first JSON line it prints. */
async function run(script: string): Promise<Record<string, string[]>> {
  const peer = new RawStdioPeer('', ['-e', script]);
  const line = await peer.next(() => true);
  await peer.exited;
  return line as Record<string, string[]>;
}

/**
 * A stdio server loads only what it uses: HTTP (Koa), Ajv, jose, ioredis, OpenTelemetry and mcpkit's
 * HTTP, client, proxy, auth, telemetry and Apps code load on first use (test/fixtures/stdio-unused.ts
 * lists them). Checked in a real process, whose `require.cache` is Node's own.
 */
describe('what a stdio server loads', () => {
  it('answers a tools/call having loaded none of the packages and mcpkit modules it does not use, and few modules in all', async () => {
    const peer = new RawStdioPeer(join(DIST, 'test', 'fixtures', 'stdio-weight-server.js'));
    try {
      await peer.initialize();
      peer.send({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'loaded', arguments: {} } });
      const answer = await peer.response('w');
      expect(JSON.parse((answer.result as { content: { text: string }[] }).content[0].text)).toEqual([]);
      // Every module costs its resolution, reading and compiling at each start: 123 after the first
      // tools/call (134 before the 2026-07-28 dispatch and the task machinery loaded on first use).
      peer.send({ jsonrpc: '2.0', id: 'm', method: 'tools/call', params: { name: 'modules', arguments: {} } });
      const count = Number(((await peer.response('m')).result as { content: { text: string }[] }).content[0].text);
      expect(count).toBeLessThanOrEqual(MODULE_BUDGET);
    } finally {
      peer.endInput();
      await peer.exited;
    }
  });

  it('loads them once they are used: HTTP, runtime registration, an in-process client, the task store, composition (the check above can see them)', async () => {
    const line = await run(`require('reflect-metadata');
      const { McpApplication, McpModule } = require(${JSON.stringify(join(DIST, 'src'))});
      const { unusedOnStdio } = require(${UNUSED});
      class M {}
      McpModule({ server: { name: 'weight', version: '1.0.0' } })(M);
      (async () => {
        const before = unusedOnStdio();
        const app = await McpApplication.create(M, { logger: { error() {}, warn() {}, info() {} } });
        app.addTool({ name: 'schema', inputSchema: { type: 'object' }, handler: () => 'ok' });
        app.connectInMemory();
        await app.httpTransport().close();
        app.taskStore;
        await app.notifyResourceUpdated('file:///weight');
        const after = unusedOnStdio();
        await app.close();
        process.stdout.write(JSON.stringify({ before, after }) + '\\n');
      })();`);
    expect(line.before).toEqual([]);
    expect(line.after).toEqual(
      expect.arrayContaining([
        'koa',
        'ajv',
        'src/transports/http/streamable-http.js',
        'src/transports/in-memory.transport.js',
        'src/registry/dynamic-builder.js',
        'src/kernel/definitions.js',
        'src/registry/uri-template.js',
        'src/tasks/in-memory.task-store.js',
        'src/composition/composition.js',
      ]),
    );
    // A Koa server loads nothing of the fetch front door (the fetch handler, its exchange, the Lambda adapter).
    expect(line.after.filter((m) => /src\/transports\/http\/(fetch-|lambda-)/.test(m))).toEqual([]);
  });

  it('imports mcpkit/auth (a token verifier) without jose or the OAuth proxy endpoints, which load with a proxy', async () => {
    const line = await run(`const auth = require(${JSON.stringify(join(DIST, 'src', 'auth'))});
      const { unusedOnStdio } = require(${UNUSED});
      const before = unusedOnStdio();
      new auth.OAuthProxy({
        issuer: 'http://127.0.0.1:8080',
        resource: 'http://127.0.0.1:8080/mcp',
        upstream: { authorizationEndpoint: 'https://idp.example/authorize', tokenEndpoint: 'https://idp.example/token', clientId: 'c' },
      });
      process.stdout.write(JSON.stringify({ before, after: unusedOnStdio() }) + '\\n');`);
    // What mcpkit/auth exports (the proxy's front, its in-memory store and error) loads with it; the rest of the proxy does not.
    const proxyParts = (loaded: string[]) =>
      loaded.filter(
        (m) => m === 'jose' || /^src\/auth\/oauth-proxy\/(?!index\.|oauth-proxy\.js|in-memory\.oauth-proxy-store\.|oauth\.error\.)/.test(m),
      );
    expect(proxyParts(line.before)).toEqual([]);
    expect(proxyParts(line.after)).toEqual(
      expect.arrayContaining(['src/auth/oauth-proxy/oauth-proxy.server.js', 'src/auth/oauth-proxy/token.endpoint.js']),
    );
  });
});
