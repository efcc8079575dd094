import { copyFileSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type CliRun, cleanEnv, mcpkit, run } from '../../helpers/cli';
import { playDockerfile, runInImage } from '../../helpers/dockerfile';
import { textOf } from '../../helpers/per-request-client-suite';
import { packedTarball } from '../../helpers/packed-tarball';
import { ROOT } from '../../helpers/paths';
import { sdk2 } from '../../helpers/sdk2';
import { spawnHttpServer } from '../../helpers/spawn-server';
import { startWorkerd } from '../../helpers/workerd';
import { freePort } from '../../helpers/free-port';

/*
 * `mcpkit init --target …`, installed the way its README tells a user who has mcpkit as a tarball: the
 * project names this tree's `npm pack` tarball (`--mcpkit file:mcpkit-x.y.z.tgz`, the file copied into the
 * project), and the README's install command fetches everything else from the npm registry. Nothing comes
 * from this repository but the runtimes' binaries (bun, deno) and Node. Then each project runs its own test,
 * and serves its tool to the SDK 2.x client: Bun.serve, Deno.serve, workerd (the project's own, at the
 * compatibility date of its wrangler.toml), and the node project's Dockerfile played without Docker.
 */
const BIN = join(ROOT, 'node_modules', '.bin');
/** Installs from the npm cache when it can (npm reads npm_config_* from the environment). */
const NPM_CACHE_FIRST = { npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
let tmp: string;
let tarball: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'mcpkit-init-targets-'));
  tarball = (await packedTarball()).tarball;
}, 300_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `mcpkit init <tmp>/my-<target> --target <target> --mcpkit file:<tarball>`, the tarball copied into the project. */
async function generate(target: string): Promise<string> {
  const dir = join(tmp, `my-${target}`);
  const init = await mcpkit(['init', dir, '--target', target, '--mcpkit', `file:${basename(tarball)}`], tmp);
  expect(init).toMatchObject({ code: 0, stderr: '' });
  copyFileSync(tarball, join(dir, basename(tarball)));
  return dir;
}

/** The commands of the README's first line of bash (`npm install && npm test`), each as its words. */
function readmeCommands(dir: string): string[][] {
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');
  const first = /```bash\n([^\n]*)/.exec(readme)![1].replace(/#.*$/, '');
  return first.split('&&').map((command) => command.trim().split(/\s+/));
}

/**
 * The bound on one install, build or test command: a slow step fails as that step, with its output. A test's
 * bound is the sum of its commands' (a loaded machine runs each more slowly): 720 s for a target's three
 * (install, test, serve), 1,200 s for the node target's five (install, its Dockerfile's three, serve).
 */
const COMMAND_MS = 240_000;

/** Runs a README command: npm from the PATH (cache first), bun and deno as this repository's devDependencies ship them. */
function runCommand(dir: string, [program, ...args]: string[]): Promise<CliRun> {
  const command = program === 'npm' ? 'npm' : join(BIN, program);
  return run(command, args, { cwd: dir, env: cleanEnv({ ...NPM_CACHE_FIRST, NO_COLOR: '1' }), timeoutMs: COMMAND_MS });
}

/** The README's install command, then: mcpkit is the tarball's, unpacked (not a link), as are its dependencies. */
async function install(dir: string, command: string[]): Promise<void> {
  expect(passed(await runCommand(dir, command))).toEqual({ code: 0, output: '' });
  const installed = join(dir, 'node_modules', 'mcpkit');
  expect(lstatSync(installed).isDirectory()).toBe(true);
  expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version).toBe(/^mcpkit-(.+)\.tgz$/.exec(basename(tarball))![1]);
  // mcpkit's own dependencies, from the registry.
  expect(existsSync(join(dir, 'node_modules', 'koa', 'package.json'))).toBe(true);
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

function passed(result: CliRun) {
  return { code: result.code, output: result.code === 0 ? '' : result.stdout + result.stderr };
}

/** The status of a GET with a given Host header (fetch sets Host itself). */
function statusFor(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    })
      .on('error', reject)
      .end();
  });
}

describe('mcpkit init --target', () => {
  it('refuses a target it does not know', async () => {
    const result = await mcpkit(['init', join(tmp, 'nowhere'), '--target', 'cobol'], tmp);
    expect(result).toMatchObject({ code: 2, stderr: 'mcpkit: --target must be one of node, bun, deno, workers, lambda, not cobol\n' });
  });

  it('node: its Dockerfile, played without Docker, builds an image whose CMD serves the SDK 2.x client and passes its HEALTHCHECK', async () => {
    const dir = await generate('node');
    const [installCommand] = readmeCommands(dir);
    expect(installCommand).toEqual(['npm', 'install']);
    // The README's install makes the lockfile the image's `npm ci` installs from.
    await install(dir, installCommand);
    const image = await playDockerfile(join(dir, 'Dockerfile'), dir, join(tmp, 'node-image'), NPM_CACHE_FIRST);
    expect(image.user).not.toMatch(/^(root|0)?$/);
    expect(image.env).toMatchObject({ HOST: '0.0.0.0' });
    // Only production dependencies in the image: no compiler.
    expect(existsSync(join(image.dir, 'node_modules', 'typescript'))).toBe(false);
    const port = await freePort();
    // As `docker run -e ALLOWED_HOSTS=mcp.example.com` would start it.
    const env = { ...image.env, PORT: String(port), ALLOWED_HOSTS: 'mcp.example.com' };
    const [program, ...args] = image.cmd;
    expect(program).toBe('node');
    const server = await spawnHttpServer(args.pop()!, env, { command: process.execPath, args, cwd: image.dir });
    try {
      expect(server.stderr()).toContain(`my-node: serving MCP at http://0.0.0.0:${port}/mcp`);
      expect(passed(await runInImage(image, image.healthcheck, env))).toEqual({ code: 0, output: '' });
      expect(await callAdd(`http://127.0.0.1:${port}/mcp`)).toEqual({ sum: 42 });
      // Bound to 0.0.0.0, the Host header is still checked: the allowed name passes, any other gets 403.
      expect(await statusFor(`http://127.0.0.1:${port}/health`, `mcp.example.com:${port}`)).toBe(200);
      expect(await statusFor(`http://127.0.0.1:${port}/health`, `attacker.example:${port}`)).toBe(403);
    } finally {
      await server.stop();
    }
    // Once stopped, the health check fails.
    expect((await runInImage(image, image.healthcheck, env)).code).not.toBe(0);
  }, 1_200_000);

  it('bun: `bun install && bun test` pass, and Bun.serve answers the SDK 2.x client', async () => {
    const dir = await generate('bun');
    const [installCommand, testCommand] = readmeCommands(dir);
    expect([installCommand, testCommand]).toEqual([
      ['bun', 'install'],
      ['bun', 'test'],
    ]);
    await install(dir, installCommand);
    const test = await runCommand(dir, testCommand);
    expect(passed(test)).toEqual({ code: 0, output: '' });
    expect(test.stderr).toMatch(/ 2 pass\n/);
    const start = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts.start as string).split(' ');
    expect(start).toEqual(['bun', 'run', 'src/main.ts']);
    const server = await spawnHttpServer(start[2], {}, { command: join(BIN, 'bun'), args: ['run'], cwd: dir });
    try {
      expect(server.stderr()).toContain('my-bun: serving MCP at http://127.0.0.1:');
      expect(await callAdd(server.url)).toEqual({ sum: 42 });
    } finally {
      await server.stop();
    }
  }, 720_000);

  it('deno: `npm install && deno task test` pass (type check included), and Deno.serve answers the SDK 2.x client', async () => {
    const dir = await generate('deno');
    const [installCommand, testCommand] = readmeCommands(dir);
    expect([installCommand, testCommand]).toEqual([
      ['npm', 'install'],
      ['deno', 'task', 'test'],
    ]);
    await install(dir, installCommand);
    const test = await runCommand(dir, testCommand);
    expect(passed(test)).toEqual({ code: 0, output: '' });
    expect(test.stdout).toMatch(/ok \| 1 passed \| 0 failed/);
    // The start task as written, run with this repository's deno (`deno task` would leave its child behind on SIGTERM).
    const { tasks } = JSON.parse(readFileSync(join(dir, 'deno.json'), 'utf8')) as { tasks: Record<string, string> };
    const start = tasks.start.split(' ').slice(1);
    const server = await spawnHttpServer(start.pop()!, {}, { command: join(BIN, 'deno'), args: start, cwd: dir });
    try {
      expect(await callAdd(server.url)).toEqual({ sum: 42 });
    } finally {
      await server.stop();
    }
  }, 720_000);

  it("workers: `npm install && npm test` pass, and the project's own workerd serves the bundle at wrangler.toml's date", async () => {
    const dir = await generate('workers');
    const [installCommand, testCommand] = readmeCommands(dir);
    expect([installCommand, testCommand]).toEqual([
      ['npm', 'install'],
      ['npm', 'test'],
    ]);
    await install(dir, installCommand);
    const wrangler = readFileSync(join(dir, 'wrangler.toml'), 'utf8');
    expect(wrangler).toContain('compatibility_flags = ["nodejs_compat"]');
    expect(wrangler).toContain('main = "dist/worker.js"');
    // The compatibility date is one the workerd of the project's wrangler knows (workerd 1.YYYYMMDD.n).
    const date = /^compatibility_date = "(\d{4}-\d\d-\d\d)"$/m.exec(wrangler)![1];
    const wranglerDeps = JSON.parse(readFileSync(join(dir, 'node_modules', 'wrangler', 'package.json'), 'utf8')).dependencies;
    const workerdVersion = JSON.parse(readFileSync(join(dir, 'node_modules', 'workerd', 'package.json'), 'utf8')).version as string;
    expect(workerdVersion).toBe(wranglerDeps.workerd);
    const [, y, m, d] = /^1\.(\d{4})(\d\d)(\d\d)\./.exec(workerdVersion)!;
    expect(date <= `${y}-${m}-${d}`).toBe(true);
    const test = await runCommand(dir, testCommand);
    expect(passed(test)).toEqual({ code: 0, output: '' });
    expect(test.stdout).toMatch(/^\W*pass 1$/m);
    expect(test.stdout).toMatch(/^\W*fail 0$/m);
    const worker = await startWorkerd(join(dir, 'dist', 'worker.js'), {
      workerd: join(dir, 'node_modules', '.bin', 'workerd'),
      compatibilityDate: date,
    });
    try {
      expect(await callAdd(worker.url)).toEqual({ sum: 42 });
    } finally {
      await worker.stop();
    }
  }, 720_000);

  it('lambda: `npm install && npm test` pass: the esbuild bundle answers a function URL event', async () => {
    const dir = await generate('lambda');
    const [installCommand, testCommand] = readmeCommands(dir);
    expect([installCommand, testCommand]).toEqual([
      ['npm', 'install'],
      ['npm', 'test'],
    ]);
    await install(dir, installCommand);
    expect(readFileSync(join(dir, 'template.yaml'), 'utf8')).toMatch(
      /Handler: index\.handler[\s\S]*Runtime: nodejs24\.x[\s\S]*FunctionUrlConfig/,
    );
    const test = await runCommand(dir, testCommand);
    expect(passed(test)).toEqual({ code: 0, output: '' });
    expect(test.stdout).toMatch(/^\W*pass 1$/m);
    expect(test.stdout).toMatch(/^\W*fail 0$/m);
  }, 720_000);
});
