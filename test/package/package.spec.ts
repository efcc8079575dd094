import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { ROOT } from '../helpers/paths';
import { RawStdioPeer } from '../helpers/raw-stdio';
import { packedTarball } from '../helpers/packed-tarball';
import { consumerDependencies, npmInstall, project, readmeExample, sh } from './consumer-projects';

/**
 * The package as users get it: `npm pack`, installed from the tarball into temporary projects
 * (CommonJS + tsc, ESM + NodeNext + tsc, tsx, vitest 3), each running the README's example; and a
 * folder install whose folder carries its own copy of the peers. Needs the npm registry.
 */
jest.setTimeout(180_000);

const CALL = { jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'greet', arguments: { name: 'Ada' } } };
const temp: string[] = [];
let packed: { tarball: string; files: string[] };
let root: string;
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

beforeAll(async () => {
  packed = await packedTarball();
  root = mkdtempSync(join(tmpdir(), 'mcpkit-consumers-'));
  temp.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'consumers', private: true }));
  await npmInstall(root, consumerDependencies(packed.tarball));
}, 300_000);

afterAll(() => {
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

/** Runs a stdio server, calls the README's tool, and returns its answer text and stderr. */
async function callOverStdio(
  script: string,
  args: string[],
  cwd: string,
  command = process.execPath,
): Promise<{ text: string; stderr: string }> {
  const peer = new RawStdioPeer(script, args, command, { cwd });
  try {
    await peer.initialize();
    peer.send(CALL);
    const answer = await peer.response('call');
    expect(peer.garbage).toEqual([]);
    return {
      text: (answer.result as { content: { text: string }[] } | undefined)?.content[0].text ?? JSON.stringify(answer),
      stderr: peer.stderr,
    };
  } finally {
    peer.endInput();
    await peer.exited;
  }
}

/** Starts the example on PORT=0, reads the URL it prints, and calls the tool over Streamable HTTP. */
async function callOverHttp(script: string, cwd: string): Promise<string> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [script], {
    cwd,
    env: { ...process.env, PORT: '0' },
    stdio: 'pipe',
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString('utf8');
        const found = /listening on (http:\/\/\S+)/.exec(err);
        if (found) resolve(found[1]);
      });
      child.once('exit', (code) => reject(new Error(`the example exited with ${code}: ${err}`)));
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': '2025-11-25' };
    await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    // The handler logs before answering, so the answer comes as SSE: the message with the call's id.
    const body = await (await fetch(url, { method: 'POST', headers: session, body: JSON.stringify(CALL) })).text();
    const messages = body.startsWith('{')
      ? [body]
      : body
          .split('\n')
          .filter((l) => l.startsWith('data: ') && l.length > 6)
          .map((l) => l.slice(6));
    const answer = messages
      .map((m) => JSON.parse(m) as { id?: string; result?: { content: { text: string }[] } })
      .find((m) => m.id === 'call');
    return answer?.result?.content[0].text ?? body;
  } finally {
    child.kill('SIGTERM');
  }
}

/** What both consumers print: a use of each entry point, typed through that entry point's own types. */
const ENTRIES_PRINTED = {
  core: 'function',
  auth: 'function',
  client: 'function',
  stores: 'function',
  redis: 'function',
  testing: 'function',
  mount: 'function',
  stdio: 'function',
  http: 'function',
  fetch: 'function',
  compose: 'function',
  differs: [],
  options: 2,
};

/**
 * Imports every entry point and prints what it found; `differs` names an entry point whose ESM names or
 * classes are not its CommonJS ones (the .mjs must re-export exactly the CommonJS module).
 */
const ENTRIES_ESM = `import { createRequire } from 'node:module';
import * as core from 'mcpkit';
import * as auth from 'mcpkit/auth';
import * as client from 'mcpkit/client';
import * as stores from 'mcpkit/stores';
import * as redis from 'mcpkit/redis';
import * as testing from 'mcpkit/testing';
import * as stdio from 'mcpkit/stdio';
import * as http from 'mcpkit/http';
import * as fetch from 'mcpkit/fetch';
import * as compose from 'mcpkit/compose';
import type { HttpTransport } from 'mcpkit/http';
import type { StdioOptions } from 'mcpkit/stdio';
import type { FetchHandler } from 'mcpkit/fetch';
import type { ProxyOptions } from 'mcpkit/compose';
import type { TokenVerifier } from 'mcpkit/auth';
import type { McpClientTransport, StdioClientOptions } from 'mcpkit/client';
import type { TaskStore } from 'mcpkit/stores';
import type { RedisScaleOutOptions } from 'mcpkit/redis';
const require = createRequire(import.meta.url);
const options: RedisScaleOutOptions = { redis: 'redis://127.0.0.1:1' };
const store: TaskStore = new stores.InMemoryTaskStore();
const verifier: TokenVerifier = new auth.StaticTokenVerifier({});
const connect: (options: StdioClientOptions) => McpClientTransport = client.stdioClientTransport;
const mount = (http: HttpTransport) => http.middleware();
const stdioOptions: StdioOptions = {};
const handler: (app: core.McpApplication) => FetchHandler = fetch.fetchHandler;
const proxied: ProxyOptions | undefined = undefined;
const esm: Record<string, object> = {
  mcpkit: core, 'mcpkit/auth': auth, 'mcpkit/client': client, 'mcpkit/stores': stores, 'mcpkit/redis': redis, 'mcpkit/testing': testing,
  'mcpkit/stdio': stdio, 'mcpkit/http': http, 'mcpkit/fetch': fetch, 'mcpkit/compose': compose,
};
const differs = Object.entries(esm).filter(([id, ns]) => {
  const cjs = require(id) as Record<string, unknown>;
  const names = Object.keys(cjs).filter((n) => n !== '__esModule');
  // Node adds names of its own to a CommonJS module's ESM face (tsc's __esModule marker, 'module.exports'):
  // interop, not mcpkit's names.
  const esmNames = Object.keys(ns).filter((n) => n !== '__esModule' && n !== 'module.exports');
  return JSON.stringify(esmNames.sort()) !== JSON.stringify(names.sort()) || esmNames.some((n) => (ns as Record<string, unknown>)[n] !== cjs[n]);
}).map(([id]) => id);
console.log(JSON.stringify({
  core: typeof core.McpApplication, auth: typeof verifier.verify, client: typeof connect, stores: typeof store.create,
  redis: typeof redis.redisScaleOut(options), testing: typeof testing.McpTestClient, differs, mount: typeof mount,
  stdio: typeof stdio.stdio, http: typeof http.httpTransport, fetch: typeof handler, compose: typeof compose.proxy,
  options: [stdioOptions, proxied].length,
}));
`;

/** The same through require (moduleResolution node10 reads the subpaths' types from typesVersions). */
const ENTRIES_CJS = `import { McpApplication } from 'mcpkit';
import { httpTransport, type HttpTransport } from 'mcpkit/http';
import { stdio, type StdioOptions } from 'mcpkit/stdio';
import { fetchHandler, type FetchHandler } from 'mcpkit/fetch';
import { proxy, type ProxyOptions } from 'mcpkit/compose';
import { StaticTokenVerifier, type TokenVerifier } from 'mcpkit/auth';
import { stdioClientTransport, type McpClientTransport, type StdioClientOptions } from 'mcpkit/client';
import { InMemoryTaskStore, type TaskStore } from 'mcpkit/stores';
import { redisScaleOut, type RedisScaleOutOptions } from 'mcpkit/redis';
import { McpTestClient } from 'mcpkit/testing';
const options: RedisScaleOutOptions = { redis: 'redis://127.0.0.1:1' };
const store: TaskStore = new InMemoryTaskStore();
const verifier: TokenVerifier = new StaticTokenVerifier({});
const connect: (options: StdioClientOptions) => McpClientTransport = stdioClientTransport;
const mount = (http: HttpTransport) => http.middleware();
const stdioOptions: StdioOptions = {};
const handler: (app: McpApplication) => FetchHandler = fetchHandler;
const proxied: ProxyOptions | undefined = undefined;
console.log(JSON.stringify({
  core: typeof McpApplication, auth: typeof verifier.verify, client: typeof connect, stores: typeof store.create,
  redis: typeof redisScaleOut(options), testing: typeof McpTestClient, differs: [], mount: typeof mount,
  stdio: typeof stdio, http: typeof httpTransport, fetch: typeof handler, compose: typeof proxy,
  options: [stdioOptions, proxied].length,
}));
`;

describe('the packed tarball', () => {
  it('holds the library build, LICENSE, README and package.json only', () => {
    const files = packed.files;
    const expected = ['LICENSE', 'README.md', 'package.json', 'lib/cli/bin.js', 'lib/testing/task-store.contract.d.ts'];
    for (const entry of ['index', 'auth', 'client', 'stdio', 'http', 'fetch', 'compose', 'stores', 'redis', 'testing'].map((e) =>
      e === 'index' ? e : `${e}/index`,
    ))
      expected.push(...['js', 'js.map', 'mjs', 'd.ts', 'd.mts'].map((ext) => `lib/${entry}.${ext}`));
    expect(files).toEqual(expect.arrayContaining(expected));
    expect(files.filter((f) => !f.startsWith('lib/') && !['LICENSE', 'README.md', 'package.json'].includes(f))).toEqual([]);
    expect(files.filter((f) => /(^|\/)(test|bench|samples|dist)\/|\.tsbuildinfo$|\.spec\.|(?<!\.d)\.m?ts$/.test(f))).toEqual([]);
  });

  it('runs the README example compiled by tsc as CommonJS (node10 resolution), over stdio and HTTP, and every entry point requires with types, without skipLibCheck or @types/koa', async () => {
    const dir = project(
      root,
      'cjs',
      'commonjs',
      { module: 'commonjs', moduleResolution: 'node10' },
      { 'src/main.ts': readmeExample(), 'src/entries.ts': ENTRIES_CJS },
    );
    await sh(dir, bin('tsc'), ['-p', '.']);
    expect((await callOverStdio(join(dir, 'out', 'main.js'), ['--stdio'], dir)).text).toBe('Hello, Ada!');
    expect(await callOverHttp(join(dir, 'out', 'main.js'), dir)).toBe('Hello, Ada!');
    const printed = JSON.parse(await sh(dir, process.execPath, [join(dir, 'out', 'entries.js')])) as Record<string, unknown>;
    expect(printed).toEqual(ENTRIES_PRINTED);
  });

  it('runs the README example compiled by tsc as ESM (NodeNext), and every entry point imports with types', async () => {
    const dir = project(
      root,
      'esm',
      'module',
      { module: 'NodeNext', moduleResolution: 'NodeNext' },
      { 'src/main.ts': readmeExample(), 'src/entries.ts': ENTRIES_ESM },
    );
    await sh(dir, bin('tsc'), ['-p', '.']);
    expect((await callOverStdio(join(dir, 'out', 'main.js'), ['--stdio'], dir)).text).toBe('Hello, Ada!');
    expect(await callOverHttp(join(dir, 'out', 'main.js'), dir)).toBe('Hello, Ada!');
    const printed = JSON.parse(await sh(dir, process.execPath, [join(dir, 'out', 'entries.js')])) as Record<string, unknown>;
    expect(printed).toEqual(ENTRIES_PRINTED);
  });

  it('loads neither koa nor ioredis when a stdio server imports it', async () => {
    const script =
      "require('reflect-metadata'); require('mcpkit'); console.log(Object.keys(require.cache).filter((f) => /node_modules[\\\\/](koa|@koa|ioredis)[\\\\/]/.test(f)).length)";
    expect((await sh(root, process.execPath, ['-e', script])).trim()).toBe('0');
  });
});

// These two run the example without decorator metadata (esbuild): they need `@Tool({ input })` to
// work without `design:paramtypes`, which lands with the explicit-metadata work.
describe('the packed tarball under esbuild-based runners', () => {
  it('runs the README example under tsx', async () => {
    const dir = project(root, 'tsx', 'commonjs', { module: 'commonjs' }, { 'src/main.ts': readmeExample() });
    // A failure to start shows up as the message of the rejected wait (it carries the server's stderr).
    const { text } = await callOverStdio(join(dir, 'src', 'main.ts'), ['--stdio'], dir, bin('tsx')).catch((e: Error) => ({
      text: e.message,
    }));
    expect(text).toBe('Hello, Ada!');
  });

  it('runs the README example and the TaskStore contract under vitest 3', async () => {
    const example = readmeExample();
    const dir = project(
      root,
      'vitest',
      'module',
      { module: 'NodeNext', moduleResolution: 'NodeNext' },
      {
        'src/example.ts': example.slice(0, example.indexOf('async function main')),
        'src/example.test.ts': `import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpApplication } from 'mcpkit';
import { InMemoryTaskStore } from 'mcpkit/stores';
import { describeTaskStoreContract, McpTestClient } from 'mcpkit/testing';
import { AppModule } from './example.js';

describe('the README example', () => {
  it('answers tools/call', async () => {
    const app = await McpApplication.create(AppModule);
    const client = await McpTestClient.connect(app.connectInMemory());
    expect(await client.request('tools/call', { name: 'greet', arguments: { name: 'Ada' } })).toMatchObject({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
    await app.close();
  });
});

describeTaskStoreContract({ describe, it, beforeEach, afterEach }, 'InMemoryTaskStore', async () => new InMemoryTaskStore({ sweepIntervalMs: 25 }));
`,
      },
    );
    const out = await sh(dir, bin('vitest'), ['run', '--root', dir]);
    // vitest colours its summary when it thinks a terminal or CI wants it: compare the plain text.
    expect(stripVTControlCharacters(out)).toMatch(/Tests\s+13 passed/);
  });
});

describe('a folder install (npm install ../path)', () => {
  it('refuses to start when the folder carries its own tsyringe, naming both copies and the fix', async () => {
    const base = mkdtempSync(join(tmpdir(), 'mcpkit-folder-'));
    temp.push(base);
    await sh(base, 'tar', ['-xzf', packed.tarball]);
    // The folder brings its own peers and dependencies, as a checkout of the repository (with its devDependencies) does.
    mkdirSync(join(base, 'package', 'node_modules'));
    const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const peer of ['tsyringe', 'class-validator', 'class-transformer', 'reflect-metadata', ...Object.keys(dependencies)]) {
      mkdirSync(dirname(join(base, 'package', 'node_modules', peer)), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', peer), join(base, 'package', 'node_modules', peer), 'dir');
    }
    const dir = project(
      base,
      'app',
      'commonjs',
      { module: 'commonjs', moduleResolution: 'node10' },
      {
        'src/main.ts': `import 'reflect-metadata';
import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { McpApplication, McpModule, Tool } from 'mcpkit';
import { stdio } from 'mcpkit/stdio';

@injectable()
export class Words {
  readonly hello = 'Hello';
}

class GreetInput {
  @IsString() name!: string;
}

@injectable()
export class Greeter {
  constructor(private readonly words: Words) {}

  @Tool({ input: GreetInput })
  greet(input: GreetInput) {
    return \`\${this.words.hello}, \${input.name}!\`;
  }
}

@McpModule({ server: { name: 'linked', version: '1.0.0' }, providers: [Greeter, Words] })
class AppModule {}

McpApplication.create(AppModule)
  .then((app) => app.listen(stdio()))
  .catch((error) => {
    console.error(String(error));
    process.exit(1);
  });
`,
      },
    );
    const deps = consumerDependencies(packed.tarball).filter((d) =>
      /^(reflect-metadata|class-validator|class-transformer|tsyringe|@types\/node)@/.test(d),
    );
    await npmInstall(dir, ['../package', ...deps]);
    await sh(dir, bin('tsc'), ['-p', '.']);
    // The application's @injectable() registered into its own copy; mcpkit would resolve through another.
    const refused = await sh(dir, process.execPath, [join(dir, 'out', 'main.js')]).catch((e: Error) => e.message);
    expect(refused).toContain('DuplicatePeerPackageError');
    expect(refused).toContain('Cannot build the application because tsyringe is loaded from more than one place');
    expect(refused).toContain(realpathSync(join(ROOT, 'node_modules', 'tsyringe')));
    expect(refused).toContain(realpathSync(join(dir, 'node_modules', 'tsyringe')));
    expect(refused).toContain('npm dedupe');

    // When mcpkit cannot use the application's copy (here: dropped from the module cache after the
    // decorators ran), bootstrap fails with an error that names both copies instead of "TypeInfo not known".
    writeFileSync(
      join(dir, 'out', 'unadoptable.js'),
      `for (const file of Object.keys(require.cache)) if (file.includes(${JSON.stringify(join(realpathSync(dir), 'node_modules', 'tsyringe'))})) delete require.cache[file];`,
    );
    const main = join(dir, 'out', 'main.js');
    const failed = await sh(dir, process.execPath, [
      '-e',
      `const M = require('module'); const load = M._load; M._load = function (request, ...rest) { const m = load.call(this, request, ...rest); if (request === 'mcpkit') require('./out/unadoptable.js'); return m; }; require(${JSON.stringify(main)});`,
    ]).catch((e: Error) => e.message);
    expect(failed).toContain('DuplicatePeerPackageError');
    expect(failed).toContain('Cannot construct provider Greeter');
    expect(failed).toContain(realpathSync(join(ROOT, 'node_modules', 'tsyringe')));
  });
});
