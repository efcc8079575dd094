import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpApplication } from '../../../src';
import { McpTestClient } from '../../../src/testing';
import { AppModule } from '../../../samples/notes/app.module';
import { ROOT } from '../../helpers/paths';
import { mcpkit } from '../../helpers/cli';

const NOTES = 'dist/samples/notes/app.module.js';

// A test here runs the CLI up to four times, each a process that loads (or builds) an application: seconds
// apiece on a quiet machine, several times that on a loaded one. Each run is bounded by helpers/cli.ts (120 s);
// the test by what its runs may take, not by the 20 s default.
jest.setTimeout(4 * 120_000);

/** What an in-process client lists for the notes sample: the reference `inspect --json` must equal. */
async function listedByInMemoryClient() {
  const app = await McpApplication.create(AppModule);
  const client = await McpTestClient.connect(app.connectInMemory());
  try {
    return {
      server: client.initializeResult!.serverInfo,
      tools: ((await client.request('tools/list')) as { tools: unknown[] }).tools,
      resources: ((await client.request('resources/list')) as { resources: unknown[] }).resources,
      resourceTemplates: ((await client.request('resources/templates/list')) as { resourceTemplates: unknown[] }).resourceTemplates,
      prompts: ((await client.request('prompts/list')) as { prompts: unknown[] }).prompts,
    };
  } finally {
    await client.close();
    await app.close();
  }
}

describe('mcpkit inspect', () => {
  it('--json prints exactly what tools/list, resources/list, templates/list and prompts/list answer, and nothing else on stdout', async () => {
    const { code, stdout, stderr } = await mcpkit(['inspect', NOTES, '--json']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const surface = JSON.parse(stdout) as Record<string, unknown>;
    const expected = await listedByInMemoryClient();
    expect(surface).toMatchObject(expected);
    expect((surface.tools as { name: string }[]).map((t) => t.name)).toContain('addNote');
    expect(surface).toMatchObject({ protocolVersion: '2025-11-25', instructions: expect.stringContaining('Keeps notes') });
  });

  it('prints text with each tool, its input and output fields, resources, templates and prompts', async () => {
    const { code, stdout } = await mcpkit(['inspect', NOTES]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^notes 1\.0\.0/);
    expect(stdout).toContain('addNote - Store a note');
    expect(stdout).toMatch(/input:\n\s+title: string {2}A short title/);
    expect(stdout).toMatch(/output:\n\s+id: string/);
    expect(stdout).toContain('notes://index [application/json]');
    expect(stdout).toContain('notes://{id} [text/markdown]');
    expect(stdout).toContain('summarize-note(id, style?)');
  });

  it('lists the skills of a module that serves them: text, and skills/list as it answers in --json', async () => {
    const skills = 'dist/test/fixtures/skills.module.js';
    const text = await mcpkit(['inspect', skills]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/\nSkills \(4\)\n/);
    expect(text.stdout).toContain('skill://pdf-processing/SKILL.md (8 files) - Extract, fill, and assemble PDF documents');
    expect(text.stdout).toContain('skill://git-workflow/SKILL.md (1 file)');
    const json = JSON.parse((await mcpkit(['inspect', skills, '--json'])).stdout) as { skills: { uri: string; resources: unknown[] }[] };
    expect(json.skills.map((s) => [s.uri, s.resources.length])).toEqual([
      ['skill://acme/billing/refunds/SKILL.md', 2],
      ['skill://git-workflow/SKILL.md', 1],
      ['skill://pdf-processing/SKILL.md', 8],
      ['skill://pdf-processing/forms/SKILL.md', 1],
    ]);
    // A module without skills has an empty list, and no section in the text.
    expect(JSON.parse((await mcpkit(['inspect', NOTES, '--json'])).stdout)).toMatchObject({ skills: [] });
    expect((await mcpkit(['inspect', NOTES])).stdout).not.toContain('Skills (');
  });

  it('shows search mode: what clients list instead, the groups and the catalog behind the search tool', async () => {
    const search = 'dist/test/fixtures/search.module.js';
    const text = await mcpkit(['inspect', search]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/\nTools \(4\)\n/);
    expect(text.stdout).toContain('Search mode (bm25): clients list search_tools, call_tool, activate_group and forecast');
    expect(text.stdout).toContain('group payments (2 tools) - moving money');
    expect(text.stdout).toContain('4 tools searched: payments 2, crm 1, (no tag) 1');
    const json = JSON.parse((await mcpkit(['inspect', search, '--json'])).stdout) as { toolSearch: { catalog: { name: string }[] } };
    expect(json.toolSearch).toMatchObject({
      ranker: 'bm25',
      groupTool: 'activate_group',
      groups: { crm: { about: 'customers and sales', tools: 1 } },
    });
    expect(json.toolSearch.catalog.map((t) => t.name).sort()).toEqual(['customers', 'forecast', 'refund', 'transfer']);
    expect(JSON.parse((await mcpkit(['inspect', NOTES, '--json'])).stdout)).not.toHaveProperty('toolSearch');
  });

  it("shows each handler's call policies under it, and by handler in --json", async () => {
    const policies = 'dist/test/fixtures/policies.module.js';
    const text = await mcpkit(['inspect', policies]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'limited - At most 4 calls a minute per caller\n    input: (none)\n    policy: rate limit: 4 per 1 min per caller\n',
    );
    expect(text.stdout).toContain('    policy: rate limit: 4 per 1 min per caller (refused while the store is away)\n');
    expect(text.stdout).toContain(
      '    annotations: idempotentHint=true\n    policy: idempotent: results kept 1 d (refused while the store is away)\n',
    );
    expect(text.stdout).toContain('data://config [text/plain]\n    policy: cache: 1 min, shared by every caller\n');
    const json = JSON.parse((await mcpkit(['inspect', policies, '--json'])).stdout) as { policies: Record<string, string[]> };
    expect(json.policies).toEqual({
      'tool limited': ['rate limit: 4 per 1 min per caller'],
      'tool strictlyLimited': ['rate limit: 4 per 1 min per caller (refused while the store is away)'],
      'tool charge': ['idempotent: results kept 1 d (refused while the store is away)'],
      'tool report': ['cache: 1 min, shared by every caller'],
      'tool serialized': ['concurrency: 1 at once for everyone, 0 queued'],
      'resource data://config': ['cache: 1 min, shared by every caller'],
    });
    expect(JSON.parse((await mcpkit(['inspect', NOTES, '--json'])).stdout)).toMatchObject({ policies: {} });
  });

  it('maps a .ts entry to its compiled output through the tsconfig rootDir/outDir, and takes a directory', async () => {
    const fromTs = await mcpkit(['inspect', 'samples/notes/app.module.ts', '--skip-build', '--json']);
    const fromDir = await mcpkit(['inspect', 'dist/samples/notes', '--json']);
    expect(fromTs.code).toBe(0);
    expect(JSON.parse(fromTs.stdout)).toEqual(JSON.parse(fromDir.stdout));
  });
});

describe('mcpkit call', () => {
  it('calls a tool in-process and prints the result as JSON, exit code 0', async () => {
    const { code, stdout } = await mcpkit(['call', NOTES, 'addNote', '{"title": "Milk", "body": "Buy milk"}']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ structuredContent: { id: expect.any(String), uri: expect.stringMatching(/^notes:\/\//) } });
  });

  it('exits 1 with the isError result when the arguments are invalid', async () => {
    const { code, stdout } = await mcpkit(['call', NOTES, 'addNote', '{"title": ""}']);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('title') }] });
  });

  it('exits 1 with one line naming the failure when the call itself fails (unknown tool)', async () => {
    const { code, stdout, stderr } = await mcpkit(['call', NOTES, 'noSuchTool']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^mcpkit: tools\/call noSuchTool failed: .*noSuchTool.*\n$/);
  });

  it('refuses arguments that are not a JSON object (usage error, exit 2)', async () => {
    const { code, stderr } = await mcpkit(['call', NOTES, 'count', '[1]']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/must be a JSON object/);
  });
});

describe('mcpkit errors: one line naming the problem and the fix, non-zero exit', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcpkit-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const oneLine = (stderr: string) => {
    expect(stderr.endsWith('\n')).toBe(true);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  };

  it('a missing entry file', async () => {
    const { code, stdout, stderr } = await mcpkit(['inspect', 'nowhere/app.module.js']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    oneLine(stderr);
    expect(stderr).toMatch(
      /^mcpkit: entry file not found: nowhere\/app\.module\.js; pass the \.js \(or \.ts\) file that exports your @McpModule class/,
    );
  });

  it('no entry given and no src/app.module.ts in the project', async () => {
    const { code, stderr } = await mcpkit(['inspect'], dir);
    expect(code).toBe(1);
    oneLine(stderr);
    expect(stderr).toMatch(/entry file not found: no .*src\/app\.module\.ts; pass the file/);
  });

  it('dev: a package main that the build does not produce', async () => {
    const project = join(dir, 'no-main');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'no-main', main: 'dist/server.js' }));
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { rootDir: 'src', outDir: 'dist', types: [] }, include: ['src'] }),
    );
    writeFileSync(join(project, 'src', 'other.ts'), 'export const other = 1;\n');
    const { code, stderr } = await mcpkit(['dev'], project);
    expect(code).toBe(1);
    oneLine(stderr);
    expect(stderr).toBe(
      'mcpkit: entry file not found: dist/server.js (after tsc -p tsconfig.json); pass the file that starts your server, or fix "main" in package.json\n',
    );
  });

  it('a module without @McpModule', async () => {
    const { code, stderr } = await mcpkit(['call', 'dist/samples/notes/notes.tools.js', 'count']);
    expect(code).toBe(1);
    oneLine(stderr);
    expect(stderr).toMatch(
      /notes\.tools\.js exports no class decorated with @McpModule \(its exports: .*NotesTools\), nor passed one to McpApplication\.create while loading: export your module class/,
    );
  });

  it("a module decorated by another copy of mcpkit than the CLI's: says to run that project's own CLI", async () => {
    mkdirSync(join(dir, 'other', 'node_modules', 'mcpkit'), { recursive: true });
    writeFileSync(join(dir, 'other', 'node_modules', 'mcpkit', 'package.json'), '{ "name": "mcpkit", "main": "index.js" }');
    writeFileSync(join(dir, 'other', 'node_modules', 'mcpkit', 'index.js'), 'exports.McpModule = () => () => undefined;');
    writeFileSync(
      join(dir, 'other', 'app.module.js'),
      "const { McpModule } = require('mcpkit'); class AppModule {} McpModule({})(AppModule); exports.AppModule = AppModule;",
    );
    const { code, stderr } = await mcpkit(['inspect', join(dir, 'other', 'app.module.js')]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /has no @McpModule class known to this CLI: its code uses the mcpkit at .*other\/node_modules\/mcpkit\/index\.js; run that project's own CLI \(npx mcpkit\)\n$/,
    );
  });

  it('a failing build: the compiler output goes to stderr, then one line', async () => {
    mkdirSync(join(dir, 'broken', 'src'), { recursive: true });
    writeFileSync(
      join(dir, 'broken', 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { rootDir: 'src', outDir: 'dist', types: [] }, include: ['src'] }),
    );
    writeFileSync(join(dir, 'broken', 'src', 'app.module.ts'), "export const count: number = 'not a number';\n");
    const { code, stdout, stderr } = await mcpkit(['inspect', '--json'], join(dir, 'broken'));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain("Type 'string' is not assignable to type 'number'");
    expect(stderr.trimEnd().split('\n').pop()).toBe(
      'mcpkit: build failed: tsc -p tsconfig.json reported errors (above); fix them and run again',
    );
  });

  it('several modules: --module picks one, without it the error lists them', async () => {
    writeFileSync(
      join(dir, 'two.js'),
      `const { McpModule } = require(${JSON.stringify(join(ROOT, 'dist', 'src'))});
       class A {} McpModule({ server: { name: 'a', version: '1' }, providers: [] })(A);
       class B {} McpModule({ server: { name: 'b', version: '1' }, providers: [] })(B);
       module.exports = { A, B };`,
    );
    const both = await mcpkit(['inspect', join(dir, 'two.js')]);
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/exports several @McpModule classes \(A, B\): choose one with --module <Name>/);
    const b = await mcpkit(['inspect', join(dir, 'two.js'), '--module', 'B', '--json']);
    expect(b.code).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({ server: { name: 'b' }, tools: [] });
  });

  it('a definition mistake: the named error on one line, no stack', async () => {
    writeFileSync(
      join(dir, 'duplicate.js'),
      `const { McpModule, Tool, EmptyInput } = require(${JSON.stringify(join(ROOT, 'dist', 'src'))});
       class Tools { a() {} b() {} }
       for (const m of ['a', 'b']) {
         Reflect.defineMetadata('design:paramtypes', [EmptyInput], Tools.prototype, m);
         Tool({ name: 'same' })(Tools.prototype, m, Object.getOwnPropertyDescriptor(Tools.prototype, m));
       }
       class Dup {} McpModule({ server: { name: 'dup', version: '1' }, providers: [Tools] })(Dup);
       module.exports = { Dup };`,
    );
    const { code, stderr } = await mcpkit(['inspect', join(dir, 'duplicate.js')]);
    expect(code).toBe(1);
    expect(stderr).toBe('mcpkit: cannot build Dup: Tool name "same" is declared twice: by Tools.a and by Tools.b\n');
  });

  it('an unknown command or option is a usage error (exit 2)', async () => {
    expect(await mcpkit(['frobnicate'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^mcpkit: unknown command "frobnicate": use one of init, dev, inspect, call/),
    });
    expect(await mcpkit(['inspect', '--bogus'])).toMatchObject({
      code: 2,
      stderr: "mcpkit: Unknown option '--bogus' (see mcpkit inspect --help)\n",
    });
  });
});

describe('mcpkit --help and --version', () => {
  it("lists the commands, shows one command's help, and prints the package version", async () => {
    const help = await mcpkit(['--help']);
    expect(help.code).toBe(0);
    for (const name of ['init', 'dev', 'inspect', 'call']) expect(help.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    const inspectHelp = await mcpkit(['inspect', '--help']);
    expect(inspectHelp).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: mcpkit inspect \[entry\] \[--json\]/) });
    const version = await mcpkit(['--version']);
    expect(version.stdout).toBe(`${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);
  });
});
