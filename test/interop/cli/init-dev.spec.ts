import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { RawStdioPeer } from '../../helpers/raw-stdio';
import { CLI, cleanEnv, mcpkit, packMcpkit, run } from '../../helpers/cli';
import { freePort } from '../../helpers/free-port';
import { waitFor } from '../../helpers/wait-for';

/*
 * One generated project, installed once from the registry (mcpkit itself from a tarball of this
 * tree), serves every test here: its own test command, serving over stdio, and `mcpkit dev`.
 */
let tmp: string;
let app: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'mcpkit-init-'));
  const tarball = await packMcpkit(tmp);
  const init = await mcpkit(['init', join(tmp, 'my-server'), '--skills', '--mcpkit', `file:${tarball}`], tmp);
  expect(init).toMatchObject({ code: 0, stderr: '' });
  app = join(tmp, 'my-server');
  const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, timeoutMs: 240_000 });
  expect({ code: install.code, stderr: install.code === 0 ? '' : install.stderr }).toEqual({ code: 0, stderr: '' });
}, 300_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function setDescription(description: string): void {
  const file = join(app, 'src', 'app.module.ts');
  writeFileSync(
    file,
    readFileSync(file, 'utf8').replace(/description: '[^']*', output: Sum/, `description: '${description}', output: Sum`),
  );
}

describe('mcpkit init', () => {
  it('writes the project files, and refuses a directory that is not empty', async () => {
    const files = ['package.json', 'tsconfig.json', 'src/app.module.ts', 'src/main.ts', 'test/app.module.spec.ts', 'README.md'];
    for (const file of [...files, 'skills/adding-numbers/SKILL.md']) {
      expect(readFileSync(join(app, file), 'utf8').length).toBeGreaterThan(0);
    }
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies).sort()).toEqual([
      'class-transformer',
      'class-validator',
      'mcpkit',
      'reflect-metadata',
      'tsyringe',
    ]);
    expect(pkg.devDependencies.typescript).toMatch(/5\.9/);
    const again = await mcpkit(['init', app]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^mcpkit: .*my-server is not an empty directory: choose a new or empty one\n$/);
  });

  it('defaults the mcpkit dependency to this version', async () => {
    const dir = join(tmp, 'default-spec');
    expect((await mcpkit(['init', dir])).code).toBe(0);
    // Without --skills: no skills folder, and none served.
    expect(existsSync(join(dir, 'skills'))).toBe(false);
    expect(readFileSync(join(dir, 'src', 'app.module.ts'), 'utf8')).not.toContain('skills');
    const workers = await mcpkit(['init', join(tmp, 'worker'), '--target', 'workers', '--skills']);
    expect(workers).toMatchObject({ code: 2, stderr: expect.stringContaining('--skills reads skills from the file system') });
    const version = (JSON.parse(readFileSync(join(CLI, '..', '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies.mcpkit).toBe(`^${version}`);
  });

  it('passes its own test command (the in-memory client calls its tool, resource and prompt)', async () => {
    const test = await run('npm', ['test'], { cwd: app });
    expect({ code: test.code, output: test.code === 0 ? '' : test.stdout + test.stderr }).toEqual({ code: 0, output: '' });
    expect(test.stderr).toMatch(/Tests:\s+4 passed/);
  }, 120_000);

  it('builds and serves a tools/call over stdio with nothing but protocol on stdout', async () => {
    const build = await run('npm', ['run', 'build'], { cwd: app });
    expect(build.code).toBe(0);
    const server = new RawStdioPeer(join(app, 'dist', 'src', 'main.js'), ['--stdio'], process.execPath, { cwd: app });
    try {
      await server.initialize();
      server.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 40 } } });
      expect(await server.response(2)).toMatchObject({ result: { structuredContent: { sum: 42 } } });
      // Built to dist/src/, the module still finds the skills folder at the project's root.
      server.send({ jsonrpc: '2.0', id: 3, method: 'skills/list', params: {} });
      expect(await server.response(3)).toMatchObject({ result: { skills: [{ uri: 'skill://adding-numbers/SKILL.md' }] } });
      expect(server.garbage).toEqual([]);
      server.endInput();
      expect(await server.exited).toBe(0);
    } finally {
      server.kill();
    }
  }, 60_000);
});

describe('from the README to a client', () => {
  it('`mcpkit install claude-desktop` lists the new server, which starts from that entry alone', async () => {
    const home = join(tmp, 'home');
    const installed = await run(join(app, 'node_modules', '.bin', 'mcpkit'), ['install', 'claude-desktop'], {
      cwd: app,
      env: cleanEnv({ HOME: home }),
    });
    expect(installed).toMatchObject({ code: 0, stdout: '' });
    const config = JSON.parse(readFileSync(join(home, '.config', 'Claude', 'claude_desktop_config.json'), 'utf8')) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    const entry = config.mcpServers['my-server'];
    const client = new Client({ name: 'claude-desktop', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, cwd: tmpdir(), stderr: 'pipe' }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('add');
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe('mcpkit dev', () => {
  it('over HTTP: serves on PORT, rebuilds and restarts on a change, on the same port', async () => {
    const port = await freePort();
    const dev = spawn(process.execPath, [CLI, 'dev'], {
      cwd: app,
      env: cleanEnv({ PORT: String(port) }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = collect(dev);
    try {
      const url = `http://127.0.0.1:${port}/mcp`;
      await output.waitFor(`serving MCP at ${url}`, 1);
      expect(await toolDescription(url)).toBe('Adds two integers');
      setDescription('Adds two integers, restarted');
      await output.waitFor('rebuilt and restarted', 1);
      await output.waitFor(`serving MCP at ${url}`, 2);
      expect(await toolDescription(url)).toBe('Adds two integers, restarted');
    } finally {
      await stop(dev);
    }
  }, 90_000);

  it('over stdio: only protocol on stdout, and the session carries over a restart', async () => {
    const dev = new RawStdioPeer(CLI, ['dev', '--stdio'], process.execPath, { cwd: app, env: cleanEnv() });
    try {
      await dev.initialize(60_000); // the first build comes before the first answer
      dev.send({ jsonrpc: '2.0', id: 'before', method: 'tools/list' });
      expect(await dev.response('before')).toMatchObject({ result: { tools: [{ name: 'add' }] } });
      setDescription('Adds two integers, over stdio');
      await until(
        () => dev.stderr.includes('rebuilt and restarted'),
        () => dev.stderr,
      );
      dev.send({ jsonrpc: '2.0', id: 'after', method: 'tools/list' });
      expect(await dev.response('after')).toMatchObject({
        result: { tools: [{ name: 'add', description: 'Adds two integers, over stdio' }] },
      });
      expect(dev.stderr).toContain('change detected: tsc -p tsconfig.json');
      // Under dev the skill folders are watched: an edited skill has its new digest without a restart.
      const skillFile = join(app, 'skills', 'adding-numbers', 'SKILL.md');
      const skillText = readFileSync(skillFile, 'utf8');
      const edited = `${skillText}\nOne more line.\n`;
      try {
        writeFileSync(skillFile, edited);
        const want = `sha256:${createHash('sha256').update(edited).digest('hex')}`;
        let round = 0;
        await waitFor(
          async () => {
            dev.send({ jsonrpc: '2.0', id: `skill-${round}`, method: 'skills/get', params: { uri: 'skill://adding-numbers/SKILL.md' } });
            const answer = (await dev.response(`skill-${round++}`)) as {
              result: { skill: { resources: { uri: string; digest: string }[] } };
            };
            return answer.result.skill.resources.some((r) => r.uri === 'skill://adding-numbers/SKILL.md' && r.digest === want);
          },
          { what: "the edited skill's digest", intervalMs: 100, timeoutMs: 15_000 },
        );
      } finally {
        writeFileSync(skillFile, skillText);
      }
      expect(dev.garbage).toEqual([]);
      // Only the answers to the client's own requests: the replayed initialize's answer stays hidden.
      expect(dev.lines.filter((m) => 'id' in m && !String(m.id).startsWith('skill-')).map((m) => m.id)).toEqual([
        'init',
        'before',
        'after',
      ]);
      dev.endInput();
      expect(await dev.exited).toBe(0);
    } finally {
      dev.kill();
    }
  }, 90_000);

  it('reloads after every save by rename (vim, JetBrains safe write, sed -i), not only the first', async () => {
    const file = join(app, 'src', 'app.module.ts');
    const source = readFileSync(file, 'utf8');
    /** What an editor's atomic save does: the new text goes to a temporary file that then replaces the source. */
    const saveByRename = (offset: number) => {
      writeFileSync(`${file}.tmp`, source.replace('sum: input.a + input.b', `sum: input.a + input.b + ${offset}`));
      renameSync(`${file}.tmp`, file);
    };
    const dev = new RawStdioPeer(CLI, ['dev', '--stdio'], process.execPath, { cwd: app, env: cleanEnv() });
    const sum = async (id: string) => {
      dev.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 40 } } });
      return ((await dev.response(id)) as { result: { structuredContent: { sum: number } } }).result.structuredContent.sum;
    };
    try {
      await dev.initialize(60_000); // the first build comes before the first answer
      expect(await sum('first')).toBe(42);
      for (const [round, offset] of [100, 200, 300].entries()) {
        saveByRename(offset);
        await until(
          () => dev.stderr.split('rebuilt and restarted').length > round + 1,
          () => dev.stderr,
        );
        expect(await sum(`after-save-${round}`)).toBe(42 + offset);
      }
      dev.endInput();
      expect(await dev.exited).toBe(0);
    } finally {
      dev.kill();
      writeFileSync(file, source);
    }
  }, 180_000);

  it('stops with one line when the first build fails', async () => {
    const file = join(app, 'src', 'app.module.ts');
    const source = readFileSync(file, 'utf8');
    writeFileSync(file, source + "\nexport const broken: number = 'no';\n");
    try {
      const { code, stdout, stderr } = await mcpkit(['dev'], app);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr.trimEnd().split('\n').pop()).toBe(
        'mcpkit: build failed: tsc -p tsconfig.json reported errors (above); fix them and run again',
      );
    } finally {
      writeFileSync(file, source);
    }
  }, 60_000);
});

/** stdout and stderr together, and a wait for the n-th occurrence of a text in them. */
function collect(child: ChildProcess) {
  let text = '';
  child.stdout!.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (text += c.toString()));
  return {
    waitFor: (needle: string, occurrence: number) =>
      until(
        () => text.split(needle).length > occurrence,
        () => text,
      ),
  };
}

async function until(condition: () => boolean, describe: () => string): Promise<void> {
  for (let i = 0; i < 1200 && !condition(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!condition()) throw new Error(`condition not met; output so far:\n${describe()}`);
}

/** A fresh session over Streamable HTTP: initialize, then the description of the tool "add". */
async function toolDescription(url: string): Promise<string> {
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
  const session = init.headers.get('mcp-session-id')!;
  await init.json();
  const sessionHeaders = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await fetch(url, {
    method: 'POST',
    headers: sessionHeaders,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  const list = await fetch(url, {
    method: 'POST',
    headers: sessionHeaders,
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  const body = (await list.json()) as { result: { tools: { name: string; description: string }[] } };
  return body.result.tools.find((t) => t.name === 'add')!.description;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}
