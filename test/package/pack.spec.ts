import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { bundleFiles } from '../../src/cli/pack-bundle';
import { cleanEnv, mcpkit, run } from '../helpers/cli';
import { packedTarball } from '../helpers/packed-tarball';
import { ROOT } from '../helpers/paths';
import { npmInstall, sh } from './consumer-projects';

/**
 * `mcpkit pack` in a project made by `mcpkit init` with the packed tarball installed from npm, first as init
 * writes it (private, no registry fields), then as a public package with them: the bundle is unpacked and validated by the MCPB tool of the bundle format's maintainers, then started
 * the way a desktop client starts it; server.json is checked against the registry's rules, and
 * `--check` catches a stale copy. Needs the npm registry.
 */
jest.setTimeout(180_000);

const MCPB = join(ROOT, 'node_modules', '.bin', 'mcpb');
let tmp: string;
let dir: string;
let bin: string;

const PACKAGE = {
  description: 'Adds numbers for a weather desk',
  author: 'Ada Lovelace <ada@example.com> (https://ada.example.com)',
  license: 'MIT',
  repository: { type: 'git', url: 'git+https://github.com/ada/weather.git' },
  bin: { weather: 'dist/src/main.js' },
  mcpName: 'io.github.ada/weather',
  mcpkit: {
    settings: {
      WEATHER_API_KEY: { title: 'API key', description: 'The key of the weather API', secret: true, required: true },
      DATA_DIR: { type: 'directory', description: 'Where forecasts are kept' },
      UNITS: { description: 'metric or imperial', default: 'metric' },
    },
    remotes: [{ url: 'https://weather.example.com/mcp', headers: { Authorization: { description: 'Bearer token', secret: true } } }],
  },
};

function editPackage(edit: (pkg: Record<string, unknown>) => void): void {
  const file = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(pkg);
  writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
}

const pack = (...args: string[]) => run(bin, ['pack', ...args], { cwd: dir, env: cleanEnv() });
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

const BUNDLE = 'weather-0.1.0.mcpb';

/** One project for the whole file, as `mcpkit init` writes it, installed once: the first tests pack it as it is. */
beforeAll(async () => {
  const { tarball } = await packedTarball();
  tmp = mkdtempSync(join(tmpdir(), 'mcpkit-pack-'));
  dir = join(tmp, 'weather');
  expect((await mcpkit(['init', dir], tmp)).code).toBe(0);
  await npmInstall(dir, [tarball]);
  bin = join(dir, 'node_modules', '.bin', 'mcpkit');
}, 300_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The bundle as the MCPB tool unpacks it, in a new folder. */
async function unpackBundle(): Promise<string> {
  const into = mkdtempSync(join(tmp, 'unpacked-'));
  const done = await run(MCPB, ['unpack', join(dir, BUNDLE), into]);
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
  const path = join(dir, file);
  const saved = readFileSync(path, 'utf8');
  writeFileSync(path, edit(saved));
  try {
    await body();
  } finally {
    writeFileSync(path, saved);
  }
}

describe('mcpkit pack in the project as init writes it', () => {
  it('makes a bundle of the project as init writes it, private included, with its description and author', async () => {
    const packed = await pack();
    expect(packed.stderr).toMatch(
      /^mcpkit: wrote weather-0\.1\.0\.mcpb \([\d.]+ MB, \d+ files, 1 tools, 1 prompts; sha256 [0-9a-f]{64}\)$/m,
    );
    expect(packed.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { private: boolean; description: string; author: string };
    expect(pkg.private).toBe(true);
    const manifest = JSON.parse(readFileSync(join(await unpackBundle(), 'manifest.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: 'weather', description: pkg.description, author: { name: pkg.author } });

    // With an mcpName, a private package still makes its bundle: only server.json, which could list nothing, is left out.
    rmSync(join(dir, BUNDLE));
    await withEdit(
      'package.json',
      (text) => text.replace('"version"', '"mcpName": "io.github.ada/weather",\n  "version"'),
      async () => {
        const again = await pack('--skip-build');
        expect(again.stderr).toContain('mcpkit: no server.json, as there is nothing to list in the MCP Registry');
        expect(again.code).toBe(0);
        expect(existsSync(join(dir, BUNDLE))).toBe(true);
        expect(existsSync(join(dir, 'server.json'))).toBe(false);
      },
    );
  }, 180_000);

  it("leaves out the clients' configurations that mcpkit install writes into the project", async () => {
    const configs = ['.mcp.json', '.mcp.json.bak', '.cursor/mcp.json', '.vscode/mcp.json', 'mcp.json', '.codex/config.toml'];
    const secret = { mcpServers: { remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer s3cret' } } } };
    for (const file of configs) {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(
        join(dir, file),
        file.endsWith('.toml') ? '[mcp_servers.remote]\nurl = "https://mcp.example.com/mcp"\n' : JSON.stringify(secret),
      );
    }
    try {
      expect((await pack('--skip-build')).code).toBe(0);
      const files = filesUnder(await unpackBundle());
      expect(files).toEqual(expect.arrayContaining(['manifest.json', 'package.json', 'README.md', 'dist/src/main.js']));
      expect(configs.filter((file) => files.includes(file))).toEqual([]);
    } finally {
      for (const file of configs) rmSync(join(dir, file));
    }
  }, 180_000);

  it('holds each file as it is, a large one and an executable one included, and makes the same bundle again', async () => {
    mkdirSync(join(dir, 'assets'), { recursive: true });
    const large = randomBytes(6 * 1024 * 1024);
    writeFileSync(join(dir, 'assets', 'large.bin'), large);
    writeFileSync(join(dir, 'assets', 'run.sh'), '#!/bin/sh\necho run\n');
    chmodSync(join(dir, 'assets', 'run.sh'), 0o755);
    try {
      const packed = await pack('--skip-build');
      expect(packed.code).toBe(0);
      const into = await unpackBundle();
      const files = filesUnder(into);
      expect(files).toEqual(expect.arrayContaining(['assets/large.bin', 'assets/run.sh', 'node_modules/mcpkit/package.json']));
      expect(readFileSync(join(into, 'assets', 'large.bin')).equals(large)).toBe(true);
      expect(statSync(join(into, 'assets', 'run.sh')).mode & 0o777).toBe(0o755);
      // Every file but the manifest is the project's own, byte for byte.
      const differ = files.filter(
        (file) => file !== 'manifest.json' && !readFileSync(join(into, file)).equals(readFileSync(join(dir, file))),
      );
      expect(differ).toEqual([]);
      expect(files.length).toBe(Number(/, (\d+) files,/.exec(packed.stderr)?.[1]));

      const first = readFileSync(join(dir, BUNDLE));
      const again = await pack('--skip-build');
      expect(again.code).toBe(0);
      expect(readFileSync(join(dir, BUNDLE)).equals(first)).toBe(true);
    } finally {
      rmSync(join(dir, 'assets'), { recursive: true, force: true });
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
      const manifest = JSON.parse(readFileSync(join(await unpackBundle(), 'manifest.json'), 'utf8')) as Record<string, unknown>;
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

describe('mcpkit pack', () => {
  let bundle: string;
  let unpacked: string;

  // From here the project is a public package with registry fields, settings and a remote.
  beforeAll(async () => {
    editPackage((pkg) => {
      delete pkg.private;
      Object.assign(pkg, PACKAGE);
    });
    await sh(dir, 'npm', ['run', '-s', 'build']);
  }, 300_000);

  it('writes a bundle that the MCPB tool unpacks and validates, listing the tools and prompts the app serves', async () => {
    const packed = await pack();
    expect(packed.code).toBe(0);
    expect(packed.stderr).toMatch(/^mcpkit: wrote server\.json \(io\.github\.ada\/weather 0\.1\.0\)$/m);
    expect(packed.stderr).toMatch(/^mcpkit: wrote server-card\.json \(io\.github\.ada\/weather 0\.1\.0\)$/m);
    expect(packed.stderr).toMatch(
      /^mcpkit: wrote weather-0\.1\.0\.mcpb \([\d.]+ MB, \d+ files, 1 tools, 1 prompts; sha256 [0-9a-f]{64}\)$/m,
    );
    // The generated main starts with "#!/usr/bin/env node", so npx can run it as the bin.
    expect(packed.stderr).not.toContain('note:');
    bundle = join(dir, 'weather-0.1.0.mcpb');
    unpacked = join(tmp, 'unpacked');
    expect((await run(MCPB, ['unpack', bundle, unpacked])).code).toBe(0);
    const validated = await run(MCPB, ['validate', join(unpacked, 'manifest.json')]);
    expect({ code: validated.code, out: validated.stdout.trim() }).toEqual({ code: 0, out: 'Manifest schema validation passes!' });

    const manifest = readJson(join(unpacked, 'manifest.json'));
    const inspected = JSON.parse((await run(bin, ['inspect', '--json', '--skip-build'], { cwd: dir })).stdout) as {
      tools: { name: string; description: string }[];
    };
    expect(manifest).toMatchObject({
      manifest_version: '0.3',
      name: 'weather',
      version: '0.1.0',
      description: PACKAGE.description,
      author: { name: 'Ada Lovelace', email: 'ada@example.com', url: 'https://ada.example.com' },
      repository: { type: 'git', url: 'https://github.com/ada/weather' },
      license: 'MIT',
      server: {
        type: 'node',
        entry_point: 'dist/src/main.js',
        mcp_config: {
          command: 'node',
          args: ['${__dirname}/dist/src/main.js', '--stdio'],
          env: { WEATHER_API_KEY: '${user_config.weather_api_key}', DATA_DIR: '${user_config.data_dir}', UNITS: '${user_config.units}' },
        },
      },
      tools: inspected.tools.map((t) => ({ name: t.name, description: t.description })),
      // The greeting says "in <language>" only when a language is given: one text cannot say that.
      prompts_generated: true,
      compatibility: { runtimes: { node: '>=22' } },
      user_config: {
        weather_api_key: { type: 'string', title: 'API key', description: 'The key of the weather API', required: true, sensitive: true },
        data_dir: { type: 'directory', title: 'DATA_DIR', description: 'Where forecasts are kept', required: false },
        units: { type: 'string', title: 'UNITS', description: 'metric or imperial', required: false, default: 'metric' },
      },
    });
    expect(manifest.tools).toEqual([{ name: 'add', description: 'Adds two integers' }]);
    expect(manifest).not.toHaveProperty('prompts');
  });

  it('serves from the unpacked bundle alone, started as a desktop client starts it, to the SDK 1.x client', async () => {
    const manifest = readJson(join(unpacked, 'manifest.json')) as { server: { mcp_config: { command: string; args: string[] } } };
    const { command, args } = manifest.server.mcp_config;
    expect(command).toBe('node');
    const client = new Client({ name: 'desktop', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: args.map((a) => a.replace('${__dirname}', unpacked)),
        // Not the bundle's folder: nothing may rely on the working directory.
        cwd: tmpdir(),
        env: { ...cleanEnv(), WEATHER_API_KEY: 'k', UNITS: 'metric' },
        stderr: 'pipe',
      }),
    );
    try {
      const result = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
      expect(result.structuredContent).toEqual({ sum: 42 });
    } finally {
      await client.close();
    }
  });

  it('writes a server.json that meets the MCP Registry schema and names the npm package and the remote', () => {
    const server = readJson(join(dir, 'server.json'));
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(REGISTRY_RULES);
    expect({ valid: validate(server), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
    expect(server).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      name: 'io.github.ada/weather',
      description: PACKAGE.description,
      version: '0.1.0',
      repository: { url: 'https://github.com/ada/weather', source: 'github' },
      packages: [
        {
          registryType: 'npm',
          identifier: 'weather',
          version: '0.1.0',
          runtimeHint: 'npx',
          transport: { type: 'stdio' },
          packageArguments: [{ type: 'positional', value: '--stdio' }],
          environmentVariables: [
            { name: 'WEATHER_API_KEY', description: 'The key of the weather API', isRequired: true, isSecret: true, format: 'string' },
            { name: 'DATA_DIR', description: 'Where forecasts are kept', isRequired: false, isSecret: false, format: 'filepath' },
            { name: 'UNITS', description: 'metric or imperial', isRequired: false, isSecret: false, format: 'string', default: 'metric' },
          ],
        },
      ],
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://weather.example.com/mcp',
          headers: [{ name: 'Authorization', description: 'Bearer token', isRequired: false, isSecret: true }],
        },
      ],
    });
    // The registry accepts an npm package only when its package.json names the server.
    expect(readJson(join(dir, 'package.json')).mcpName).toBe(server.name);
  });

  it('writes a server card (SEP-2127) for the remote: the identity of server.json and what the server lists', async () => {
    const card = readJson(join(dir, 'server-card.json'));
    const inspected = JSON.parse((await run(bin, ['inspect', '--json', '--skip-build'], { cwd: dir })).stdout) as Record<string, unknown>;
    expect(card).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: 'io.github.ada/weather',
      version: '0.1.0',
      description: PACKAGE.description,
      repository: { url: 'https://github.com/ada/weather', source: 'github' },
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://weather.example.com/mcp',
          headers: [{ name: 'Authorization', description: 'Bearer token', isRequired: false, isSecret: true }],
          supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
        },
      ],
      capabilities: inspected.capabilities,
      tools: inspected.tools,
      prompts: inspected.prompts,
      resources: inspected.resources,
    });
    expect((card.tools as { name: string }[]).map((t) => t.name)).toEqual(['add']);
  });

  it('makes the same bundle again, byte for byte, without the previous bundle inside', async () => {
    const first = readFileSync(bundle);
    expect((await pack('--skip-build')).code).toBe(0);
    expect(readFileSync(bundle).equals(first)).toBe(true);
    const listed = await run(MCPB, ['info', bundle]);
    expect(listed.code).toBe(0);
    const unpackedAgain = join(tmp, 'again');
    expect((await run(MCPB, ['unpack', bundle, unpackedAgain])).code).toBe(0);
    expect((await run('find', [unpackedAgain, '-name', '*.mcpb'])).stdout).toBe('');
  });

  it('--check passes on fresh descriptions and fails, naming the fields, once package.json moves on', async () => {
    expect(await pack('--check')).toMatchObject({
      code: 0,
      stderr: 'mcpkit: server.json is up to date\nmcpkit: server-card.json is up to date\n',
    });
    editPackage((pkg) => (pkg.version = '0.2.0'));
    try {
      expect(await pack('--check', '--skip-build')).toMatchObject({
        code: 1,
        stderr:
          'mcpkit: server.json is stale (version, packages differ): run mcpkit pack and commit it\n' +
          'mcpkit: server-card.json is stale (version differs): run mcpkit pack and commit it\n',
      });
    } finally {
      editPackage((pkg) => (pkg.version = '0.1.0'));
    }
  });

  it("bundles a workspace member's dependencies, hoisted or not, and nothing else of the workspace", async () => {
    const ws = join(tmp, 'ws');
    const write = (file: string, json: unknown) => {
      mkdirSync(join(ws, file, '..'), { recursive: true });
      writeFileSync(join(ws, file), JSON.stringify(json));
    };
    write('package.json', { name: 'root', private: true, workspaces: ['pkgs/*'], dependencies: { yaml: '^2.9.1' } });
    write('pkgs/w/package.json', { name: 'w', version: '1.0.0', dependencies: { 'jsonc-parser': '^3.3.1' } });
    write('pkgs/other/package.json', { name: 'other', version: '1.0.0', dependencies: { 'smol-toml': '^1.9.1' } });
    writeFileSync(join(ws, '.env'), 'SECRET=1\n');
    await npmInstall(ws, []);
    const { files, native, problems } = bundleFiles(join(ws, 'pkgs', 'w'));
    const packages = new Set([...files.keys()].map((path) => path.split('/').slice(0, 2).join('/')));
    expect({ packages: [...packages].sort(), native, problems }).toEqual({
      packages: ['node_modules/jsonc-parser', 'package.json'],
      native: false,
      problems: [],
    });
  });

  it('notes a bin that npx could not run, lacking its "#!" line', async () => {
    editPackage((pkg) => (pkg.bin = { weather: 'dist/src/app.module.js' }));
    try {
      const packed = await pack('--skip-build', '--main', 'dist/src/main.js', '--out', join(tmp, 'out'));
      expect(packed.code).toBe(0);
      expect(packed.stderr).toContain(
        'mcpkit: note: dist/src/app.module.js has no "#!/usr/bin/env node" first line, which npx needs to run the bin\n',
      );
      expect(existsSync(join(tmp, 'out', 'weather-0.1.0.mcpb'))).toBe(true);
    } finally {
      editPackage((pkg) => (pkg.bin = PACKAGE.bin));
    }
  });

  it.each([
    [
      'a description longer than the registry takes',
      (p: Record<string, unknown>) => (p.description = 'x'.repeat(101)),
      /has 101 characters; the MCP Registry takes at most 100/,
    ],
    [
      'an mcpName without a namespace',
      (p: Record<string, unknown>) => (p.mcpName = 'weather'),
      /"mcpName" must be a reverse-DNS name with one slash/,
    ],
    ['a version range', (p: Record<string, unknown>) => (p.version = '^1.0.0'), /"version" must be one exact version/],
    [
      'a setting of an unknown type',
      (p: Record<string, unknown>) =>
        ((p.mcpkit as { settings: Record<string, unknown> }).settings.UNITS = { description: 'u', type: 'enum' }),
      /"mcpkit\.settings\.UNITS": "type" must be one of string, number, boolean, directory, file, got "enum"/,
    ],
    [
      'two settings that differ only in case',
      (p: Record<string, unknown>) => ((p.mcpkit as { settings: Record<string, unknown> }).settings.units = { description: 'u' }),
      /names units twice, in other cases/,
    ],
    ['a bundle without an author', (p: Record<string, unknown>) => delete p.author, /needs an "author"/],
  ])('refuses %s, clearly, and writes nothing', async (_name, edit, message) => {
    const saved = readFileSync(join(dir, 'package.json'), 'utf8');
    const written = ['server.json', 'server-card.json', 'weather-0.1.0.mcpb'].map((file) => join(dir, file));
    for (const file of written) rmSync(file, { force: true });
    editPackage(edit);
    try {
      const packed = await pack('--skip-build');
      expect(packed.code).toBe(1);
      expect(packed.stderr).toMatch(message);
      expect(packed.stderr.split('\n').filter(Boolean)).toHaveLength(1);
      expect(written.filter((file) => existsSync(file))).toEqual([]);
    } finally {
      writeFileSync(join(dir, 'package.json'), saved);
    }
  });
});

/**
 * The constraints of the MCP Registry's server.json schema (2025-12-11) that a generated file could break,
 * as the registry documents them; the schema itself is published only on the registry's site, which the
 * test machines cannot reach.
 */
const INPUT = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    isRequired: { type: 'boolean' },
    isSecret: { type: 'boolean' },
    format: { enum: ['string', 'number', 'boolean', 'filepath'] },
    default: { type: 'string' },
  },
};
const REGISTRY_RULES = {
  type: 'object',
  required: ['name', 'description', 'version'],
  properties: {
    $schema: { type: 'string', format: 'uri' },
    name: { type: 'string', pattern: '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$', minLength: 3, maxLength: 200 },
    description: { type: 'string', minLength: 1, maxLength: 100 },
    version: { type: 'string', maxLength: 255, not: { pattern: '^[\\^~<>=]|[xX*]$|^latest$' } },
    websiteUrl: { type: 'string', format: 'uri' },
    repository: {
      type: 'object',
      required: ['url', 'source'],
      properties: { url: { type: 'string', format: 'uri' }, source: { type: 'string' } },
    },
    packages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['registryType', 'identifier', 'transport'],
        properties: {
          registryType: { enum: ['npm', 'pypi', 'oci', 'nuget', 'mcpb'] },
          identifier: { type: 'string', minLength: 1 },
          version: { type: 'string', minLength: 1, not: { const: 'latest' } },
          transport: { type: 'object', required: ['type'], properties: { type: { enum: ['stdio', 'streamable-http', 'sse'] } } },
          packageArguments: {
            type: 'array',
            items: {
              type: 'object',
              required: ['type'],
              properties: { type: { enum: ['positional', 'named'] } },
              anyOf: [{ required: ['value'] }, { required: ['valueHint'] }, { required: ['name'] }],
            },
          },
          environmentVariables: { type: 'array', items: INPUT },
        },
      },
    },
    remotes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'url'],
        properties: {
          type: { enum: ['streamable-http', 'sse'] },
          url: { type: 'string', pattern: '^https?://' },
          headers: { type: 'array', items: INPUT },
        },
      },
    },
  },
};
