import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { cleanEnv, mcpkit, packMcpkit, run } from '../../helpers/cli';
import { ROOT } from '../../helpers/paths';

/*
 * `mcpkit pack` in the project `mcpkit init` makes, installed once (mcpkit itself from a tarball of this tree) and
 * packed with its own CLI; each bundle is opened with the MCPB tool of the format's maintainers.
 */
const MCPB = join(ROOT, 'node_modules', '.bin', 'mcpb');
let tmp: string;
let app: string;
let bundle: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'mcpkit-pack-init-'));
  const tarball = await packMcpkit(tmp);
  app = join(tmp, 'my-server');
  expect(await mcpkit(['init', app, '--mcpkit', `file:${tarball}`], tmp)).toMatchObject({ code: 0, stderr: '' });
  const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, timeoutMs: 240_000 });
  expect({ code: install.code, stderr: install.code === 0 ? '' : install.stderr }).toEqual({ code: 0, stderr: '' });
  bundle = join(app, 'my-server-0.1.0.mcpb');
}, 300_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const pack = (...args: string[]) => run(join(app, 'node_modules', '.bin', 'mcpkit'), ['pack', ...args], { cwd: app, env: cleanEnv() });

/** The bundle as the MCPB tool unpacks it, in a new folder. */
async function unpacked(): Promise<string> {
  const into = mkdtempSync(join(tmp, 'unpacked-'));
  const done = await run(MCPB, ['unpack', bundle, into]);
  expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: '' });
  return into;
}

function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((path) => statSync(join(dir, path)).isFile())
    .map((path) => path.split(sep).join('/'));
}

/** Runs `body` with a file of the project changed, then puts it back. */
async function withEdit(file: string, edit: (text: string) => string, body: () => Promise<void>): Promise<void> {
  const path = join(app, file);
  const saved = readFileSync(path, 'utf8');
  writeFileSync(path, edit(saved));
  try {
    await body();
  } finally {
    writeFileSync(path, saved);
  }
}

describe('mcpkit pack in a new project', () => {
  it('makes a bundle of the project as init writes it, private included, with its description and author', async () => {
    const packed = await pack();
    expect(packed.stderr).toMatch(
      /^mcpkit: wrote my-server-0\.1\.0\.mcpb \([\d.]+ MB, \d+ files, 1 tools, 1 prompts; sha256 [0-9a-f]{64}\)$/m,
    );
    expect(packed.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { private: boolean; description: string; author: string };
    expect(pkg.private).toBe(true);
    const manifest = JSON.parse(readFileSync(join(await unpacked(), 'manifest.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: 'my-server', description: pkg.description, author: { name: pkg.author } });

    // With an mcpName, a private package still makes its bundle: only server.json, which could list nothing, is left out.
    rmSync(bundle);
    await withEdit(
      'package.json',
      (text) => text.replace('"version"', '"mcpName": "io.github.ada/my-server",\n  "version"'),
      async () => {
        const again = await pack('--skip-build');
        expect(again.stderr).toContain('mcpkit: no server.json, as there is nothing to list in the MCP Registry');
        expect(again.code).toBe(0);
        expect(existsSync(bundle)).toBe(true);
        expect(existsSync(join(app, 'server.json'))).toBe(false);
      },
    );
  }, 180_000);

  it("leaves out the clients' configurations that mcpkit install writes into the project", async () => {
    const configs = ['.mcp.json', '.mcp.json.bak', '.cursor/mcp.json', '.vscode/mcp.json', 'mcp.json', '.codex/config.toml'];
    const secret = { mcpServers: { remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer s3cret' } } } };
    for (const file of configs) {
      mkdirSync(join(app, file, '..'), { recursive: true });
      writeFileSync(
        join(app, file),
        file.endsWith('.toml') ? '[mcp_servers.remote]\nurl = "https://mcp.example.com/mcp"\n' : JSON.stringify(secret),
      );
    }
    try {
      expect((await pack('--skip-build')).code).toBe(0);
      const files = filesUnder(await unpacked());
      expect(files).toEqual(expect.arrayContaining(['manifest.json', 'package.json', 'README.md', 'dist/src/main.js']));
      expect(configs.filter((file) => files.includes(file))).toEqual([]);
    } finally {
      for (const file of configs) rmSync(join(app, file));
    }
  }, 180_000);

  it('holds each file as it is, a large one and an executable one included, and makes the same bundle again', async () => {
    mkdirSync(join(app, 'assets'), { recursive: true });
    const large = randomBytes(6 * 1024 * 1024);
    writeFileSync(join(app, 'assets', 'large.bin'), large);
    writeFileSync(join(app, 'assets', 'run.sh'), '#!/bin/sh\necho run\n');
    chmodSync(join(app, 'assets', 'run.sh'), 0o755);
    try {
      const packed = await pack('--skip-build');
      expect(packed.code).toBe(0);
      const into = await unpacked();
      const files = filesUnder(into);
      expect(files).toEqual(expect.arrayContaining(['assets/large.bin', 'assets/run.sh', 'node_modules/mcpkit/package.json']));
      expect(readFileSync(join(into, 'assets', 'large.bin')).equals(large)).toBe(true);
      expect(statSync(join(into, 'assets', 'run.sh')).mode & 0o777).toBe(0o755);
      // Every file but the manifest is the project's own, byte for byte.
      const differ = files.filter(
        (file) => file !== 'manifest.json' && !readFileSync(join(into, file)).equals(readFileSync(join(app, file))),
      );
      expect(differ).toEqual([]);
      expect(files.length).toBe(Number(/, (\d+) files,/.exec(packed.stderr)?.[1]));

      const first = readFileSync(bundle);
      const again = await pack('--skip-build');
      expect(again.code).toBe(0);
      expect(readFileSync(bundle).equals(first)).toBe(true);
    } finally {
      rmSync(join(app, 'assets'), { recursive: true, force: true });
    }
  }, 180_000);

  it('lists a prompt whose optional argument only fills its place, and no dangling text for one that adds more', async () => {
    const recap = `  @Prompt({ name: 'recap', description: 'Asks for a recap' })
  recap(args: RecapArgs) {
    return [userMessage(\`Recap the notes about \${args.topic}. \${args.focus ?? ''}\`)];
  }

  @Prompt({ name: 'greeting'`;
    const args = `export class RecapArgs {
  @Field('What to recap') @IsString() topic!: string;
  @Field('What to dwell on') @IsOptional() @IsString() focus?: string;
}

@injectable()`;
    const edit = (text: string) => text.replace("  @Prompt({ name: 'greeting'", recap).replace('@injectable()', args);
    await withEdit('src/app.module.ts', edit, async () => {
      const packed = await pack();
      expect(packed.stderr).toMatch(/, 1 tools, 2 prompts; sha256/);
      expect(packed.code).toBe(0);
      const manifest = JSON.parse(readFileSync(join(await unpacked(), 'manifest.json'), 'utf8')) as Record<string, unknown>;
      // The greeting says "in <language>" only when given one: no one text says that, so it is generated.
      expect({ prompts: manifest.prompts, prompts_generated: manifest.prompts_generated }).toEqual({
        prompts: [
          {
            name: 'recap',
            description: 'Asks for a recap',
            arguments: ['topic', 'focus'],
            text: 'Recap the notes about ${arguments.topic}. ${arguments.focus}',
          },
        ],
        prompts_generated: true,
      });
    });
  }, 180_000);
});
