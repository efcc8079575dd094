import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, mcpkit, run } from '../../helpers/cli';
import { textOf } from '../../helpers/per-request-client-suite';
import { packedTarball } from '../../helpers/packed-tarball';
import { ROOT } from '../../helpers/paths';
import { sdk2 } from '../../helpers/sdk2';
import { spawnHttpServer } from '../../helpers/spawn-server';
import { startWorkerd } from '../../helpers/workerd';

/*
 * `mcpkit init --target …`: each generated project runs its own test in its runtime, and Bun, Deno and
 * workerd serve it to the SDK 2.x client. No registry install: mcpkit comes unpacked from the `npm pack`
 * tarball of this tree, its dependencies and the project's as links into this repository's node_modules.
 */
const BIN = join(ROOT, 'node_modules', '.bin');
let tmp: string;
let tarball: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'mcpkit-init-targets-'));
  tarball = (await packedTarball()).tarball;
}, 300_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `mcpkit init <tmp>/<target> --target <target>`, with a node_modules that holds this tree's packed mcpkit. */
async function generate(target: string): Promise<string> {
  const dir = join(tmp, `my-${target}`);
  const init = await mcpkit(['init', dir, '--target', target], tmp);
  expect(init).toMatchObject({ code: 0, stderr: '' });
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, 'mcpkit'), { recursive: true });
  expect((await run('tar', ['xzf', tarball, '-C', join(modules, 'mcpkit'), '--strip-components=1'])).code).toBe(0);
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    // The runtimes' own packages stay out: a project does not depend on its runtime.
    if (name.startsWith('.') || ['mcpkit', 'bun', 'deno'].includes(name)) continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  return dir;
}

async function callAdd(url: string): Promise<unknown> {
  const client = new sdk2.Client({ name: 'init-targets', version: '1.0.0' });
  await client.connect(new sdk2.StreamableHTTPClientTransport(new URL(url)));
  try {
    const result = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    expect(textOf(result)).toBe('{"sum":42}');
    return result.structuredContent;
  } finally {
    await client.close();
  }
}

function passed(result: { code: number | null; stdout: string; stderr: string }) {
  return { code: result.code, output: result.code === 0 ? '' : result.stdout + result.stderr };
}

describe('mcpkit init --target', () => {
  it('refuses a target it does not know', async () => {
    const result = await mcpkit(['init', join(tmp, 'nowhere'), '--target', 'cobol'], tmp);
    expect(result).toMatchObject({ code: 2, stderr: 'mcpkit: --target must be one of node, bun, deno, workers, lambda, not cobol\n' });
  });

  it('bun: `bun test` passes, and Bun.serve answers the SDK 2.x client', async () => {
    const dir = await generate('bun');
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts).toMatchObject({
      start: 'bun run src/main.ts',
      test: 'bun test',
    });
    const test = await run(join(BIN, 'bun'), ['test'], { cwd: dir });
    expect(passed(test)).toEqual({ code: 0, output: '' });
    expect(test.stderr).toMatch(/ 2 pass\n/);
    const server = await spawnHttpServer('src/main.ts', {}, { command: join(BIN, 'bun'), args: ['run'], cwd: dir });
    try {
      expect(server.stderr()).toContain('my-bun: serving MCP at http://127.0.0.1:');
      expect(await callAdd(server.url)).toEqual({ sum: 42 });
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('deno: its deno.json test task passes, and Deno.serve answers the SDK 2.x client', async () => {
    const dir = await generate('deno');
    const { tasks } = JSON.parse(readFileSync(join(dir, 'deno.json'), 'utf8')) as { tasks: Record<string, string> };
    // The tasks as written, run with this repository's deno.
    const args = (task: string) => tasks[task].split(' ').slice(1);
    const test = await run(join(BIN, 'deno'), args('test'), { cwd: dir, env: cleanEnv({ NO_COLOR: '1' }) });
    expect(passed(test)).toEqual({ code: 0, output: '' });
    expect(test.stdout).toMatch(/ok \| 1 passed \| 0 failed/);
    const start = args('start');
    const server = await spawnHttpServer(start.pop()!, {}, { command: join(BIN, 'deno'), args: start, cwd: dir });
    try {
      expect(await callAdd(server.url)).toEqual({ sum: 42 });
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('workers: `npm test` bundles with esbuild and calls the bundle, and workerd serves the bundle', async () => {
    const dir = await generate('workers');
    const wrangler = readFileSync(join(dir, 'wrangler.toml'), 'utf8');
    expect(wrangler).toContain('compatibility_flags = ["nodejs_compat"]');
    expect(wrangler).toContain('main = "dist/worker.js"');
    const test = await run('npm', ['test'], { cwd: dir });
    expect(passed(test)).toEqual({ code: 0, output: '' });
    expect(test.stdout).toMatch(/^\W*pass 1$/m);
    expect(test.stdout).toMatch(/^\W*fail 0$/m);
    const worker = await startWorkerd(join(dir, 'dist', 'worker.js'));
    try {
      expect(await callAdd(worker.url)).toEqual({ sum: 42 });
    } finally {
      await worker.stop();
    }
  }, 120_000);

  it('lambda: `npm test` bundles with esbuild and invokes the handler with a function URL event', async () => {
    const dir = await generate('lambda');
    expect(readFileSync(join(dir, 'template.yaml'), 'utf8')).toMatch(/Handler: index\.handler[\s\S]*FunctionUrlConfig/);
    const test = await run('npm', ['test'], { cwd: dir });
    expect(passed(test)).toEqual({ code: 0, output: '' });
    expect(test.stdout).toMatch(/^\W*pass 1$/m);
    expect(test.stdout).toMatch(/^\W*fail 0$/m);
  }, 120_000);
});
