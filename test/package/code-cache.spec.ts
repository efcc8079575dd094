import { execFile } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as esbuild from 'esbuild';
import { packedTarball } from '../helpers/packed-tarball';
import { ROOT } from '../helpers/paths';

/**
 * The V8 code cache of the published bundle (src/code-cache.ts): lib/index.js loads lib/mcpkit.js with the
 * bytecode an earlier run of the same build saved in lib/.cache/, and saves it when there was none. Checked
 * on the packed tarball, unpacked beside this repository's node_modules, in real Node processes: each
 * reports the cache's state for its load (the symbol the loader sets on the bundle's module).
 */
jest.setTimeout(120_000);

let pkg: string;
let lib: string;
let work: string;

beforeAll(async () => {
  const { tarball } = await packedTarball();
  work = mkdtempSync(join(tmpdir(), 'mcpkit-code-cache-'));
  await exec('tar', ['-xzf', tarball, '-C', work]);
  pkg = join(work, 'package');
  lib = join(pkg, 'lib');
  symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  // The scripts run from `work` (a user's project beside the package): their peers resolve here.
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeEach(() => rmSync(join(lib, '.cache'), { recursive: true, force: true }));

function exec(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { cwd: work, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

/**
 * Requires the package in a fresh Node and prints what its bundle's load found: `state` (undefined when
 * the cache did not apply), and the server's answer to a plain use of the exports. With `stay`, the
 * process lives past the moment the loader saves the bytecode.
 */
let loads = 0;
async function load(env: NodeJS.ProcessEnv = {}, flags: string[] = [], stay = true): Promise<{ state?: string; exports: number }> {
  const script = `require('reflect-metadata');
    const mcpkit = require(${JSON.stringify(pkg)});
    // Checking the cache loads nothing a server may never need: node:crypto and the streams it loads (5 ms),
    // node:module (on Node 20 it loads the ES module loader too), node:console (until something logs).
    for (const name of ['crypto', 'module', 'console'])
      if (process.moduleLoadList.includes('NativeModule ' + name)) throw new Error('node:' + name + ' was loaded');
    const state = require.cache[${JSON.stringify(join(lib, 'mcpkit.js'))}][Symbol.for('mcpkit.codeCache')];
    if (typeof mcpkit.McpApplication !== 'function') throw new Error('no McpApplication');
    ${stay ? 'setTimeout(() => {}, 1500);' : ''}
    console.log(JSON.stringify({ state, exports: Object.keys(mcpkit).length }));`;
  // A file, not `node -e`: eval mode loads node:crypto up front, as a server's main file does not.
  const file = join(work, `load-${++loads}.js`);
  writeFileSync(file, script);
  return JSON.parse(await exec(process.execPath, [...flags, file], env)) as { state?: string; exports: number };
}

const cacheFiles = (dir = join(lib, '.cache')) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.v8')) : []);

describe('the code cache of the published bundle', () => {
  it('is saved by a first run that lives past the save, and used by the next; a run that ends first saves nothing', async () => {
    const first = await load({}, [], false);
    expect(first.state).toBe('missing');
    expect(cacheFiles()).toEqual([]);
    expect((await load()).state).toBe('missing');
    expect(cacheFiles()).toHaveLength(1);
    expect(cacheFiles()[0]).toMatch(
      new RegExp(`^mcpkit\\.js-[0-9a-f]{16}-\\d+-\\d+-${process.version.replace(/\./g, '\\.')}-${process.arch}\\.v8$`),
    );
    const second = await load();
    expect(second).toEqual({ state: 'accepted', exports: first.exports });
  });

  it('serves the official SDK client from the cached bytecode, functions compiled after the load included', async () => {
    const app = join(work, 'app.js');
    writeFileSync(
      app,
      `require('reflect-metadata');
      const { McpApplication, McpModule, Tool } = require(${JSON.stringify(pkg)});
      const state = () => require.cache[${JSON.stringify(join(lib, 'mcpkit.js'))}][Symbol.for('mcpkit.codeCache')];
      class Tools { state() { return state(); } }
      Tool({ description: 'How the bundle was compiled', inputSchema: { type: 'object' } })(Tools.prototype, 'state', Object.getOwnPropertyDescriptor(Tools.prototype, 'state'));
      class M {}
      McpModule({ server: { name: 'cached', version: '1.0.0' }, providers: [Tools] })(M);
      McpApplication.create(M).then((app) => app.listen({ stdio: true }));`,
    );
    const call = async () => {
      const client = new Client({ name: 'code-cache-test', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [app], cwd: work, stderr: 'pipe' }));
      const result = (await client.callTool({ name: 'state', arguments: {} })) as { content: { text: string }[] };
      await new Promise((resolve) => setTimeout(resolve, 1500)); // past the save
      await client.close();
      return result.content[0].text;
    };
    expect(await call()).toBe('missing');
    expect(cacheFiles()).toHaveLength(1);
    expect(await call()).toBe('accepted');
  });

  it('ignores a damaged file (V8 would crash on it) and a truncated one, and saves a good one again', async () => {
    await load();
    const [file] = cacheFiles();
    const path = join(lib, '.cache', file);
    const bytes = readFileSync(path);
    for (let i = 100_000; i < 100_400; i++) bytes[i] ^= 0x5a;
    writeFileSync(path, bytes);
    expect((await load()).state).toBe('damaged');
    expect((await load()).state).toBe('accepted');
    writeFileSync(path, readFileSync(path).subarray(0, 1000));
    expect((await load()).state).toBe('damaged');
    expect((await load()).state).toBe('accepted');
    // A tail lost (a write cut short), and a file of zeros (space the file system allocated, never written).
    const whole = readFileSync(path);
    writeFileSync(path, Buffer.concat([whole.subarray(0, whole.length - 4096), Buffer.alloc(4096)]));
    expect((await load()).state).toBe('damaged');
    expect((await load()).state).toBe('accepted');
    writeFileSync(path, Buffer.alloc(whole.length));
    expect((await load()).state).toBe('rejected');
    expect((await load()).state).toBe('accepted');
  });

  it("lets V8 reject bytecode made under other flags, and saves the new process's own", async () => {
    await load();
    expect((await load({}, ['--no-opt'])).state).toBe('rejected');
    expect((await load({}, ['--no-opt'])).state).toBe('accepted');
  });

  it('never runs the bytecode of another content: a bundle edited in place gets its own cache, the old one goes', async () => {
    await load();
    const [old] = cacheFiles();
    const bundle = join(lib, 'mcpkit.js');
    const original = readFileSync(bundle);
    try {
      appendFileSync(bundle, '\n// patched\n');
      expect((await load()).state).toBe('missing');
      expect(cacheFiles()).toHaveLength(1);
      expect(cacheFiles()[0]).not.toBe(old);
      expect((await load()).state).toBe('accepted');
    } finally {
      writeFileSync(bundle, original);
    }
  });

  it('is off with MCPKIT_CODE_CACHE=0 or Node compile cache on, moves with MCPKIT_CODE_CACHE=<dir>, and a directory it cannot write is no error', async () => {
    expect((await load({ MCPKIT_CODE_CACHE: '0' })).state).toBeUndefined();
    expect((await load({ NODE_COMPILE_CACHE: join(work, 'node-cache') })).state).toBeUndefined();
    expect(cacheFiles()).toEqual([]);
    const elsewhere = join(work, 'elsewhere');
    expect((await load({ MCPKIT_CODE_CACHE: elsewhere })).state).toBe('missing');
    expect(cacheFiles(elsewhere)).toHaveLength(1);
    expect((await load({ MCPKIT_CODE_CACHE: elsewhere })).state).toBe('accepted');
    const blocked = join(work, 'a-file');
    writeFileSync(blocked, '');
    const unwritable = await load({ MCPKIT_CODE_CACHE: join(blocked, 'cache') });
    expect(unwritable.state).toBe('missing');
    expect(cacheFiles()).toEqual([]);
  });

  it("steps aside under another module loader: jest's registry (this test's) loads the bundle in the test's own realm", async () => {
    await load();
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- jest's own require is the loader under test
    const mcpkit = require(pkg) as typeof import('../../src');
    class InJest {}
    mcpkit.McpModule({ server: { name: 'in-jest', version: '1.0.0' } })(InJest);
    const app = await mcpkit.McpApplication.create(InJest);
    await app.close();
    // Node's own module cache never saw it (the loader would have put it there).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- Node's loader internals, untyped
    const node = require('node:module') as { _cache: Record<string, unknown> };
    expect(node._cache[join(lib, 'mcpkit.js')]).toBeUndefined();
  });

  it("steps aside inside a user's own bundle, beside a file of the bundle's name that is not mcpkit's", async () => {
    const out = join(work, 'bundled');
    mkdirSync(out, { recursive: true });
    const entry = join(work, 'entry.js');
    writeFileSync(entry, `const { McpApplication } = require(${JSON.stringify(pkg)}); console.log(typeof McpApplication);`);
    await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      outfile: join(out, 'server.js'),
      external: [
        'reflect-metadata',
        'class-validator',
        'class-transformer',
        'tsyringe',
        'koa',
        '@koa/router',
        'ajv',
        'jose',
        'ioredis',
        '@opentelemetry/api',
      ],
      logLevel: 'silent',
    });
    // What the bundled entry point finds at __dirname/mcpkit.js: a file of the user's.
    writeFileSync(join(out, 'mcpkit.js'), `console.log('not mcpkit'); module.exports = {};`);
    symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'), 'dir');
    expect((await exec(process.execPath, ['-r', 'reflect-metadata', join(out, 'server.js')])).trim()).toBe('function');
    expect(existsSync(join(out, '.cache'))).toBe(false);
  });
});
