import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { injectable } from 'tsyringe';
import { EmptyInput, InvalidDefinitionError, McpApplication, McpContext, McpModule, RequireScopes, Skill, Tool } from '../../src';
import { McpTestClient } from '../../src/testing';
import { ROOT } from '../helpers/paths';
import { waitFor } from '../helpers/wait-for';

const SKILLS = join(ROOT, 'test', 'fixtures', 'skills');
const EXTENSION = 'io.modelcontextprotocol/skills';
const quiet = { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } };

@injectable()
class Plain {
  @Tool({ description: 'A tool beside the skills' })
  hello(_: EmptyInput) {
    return 'hi';
  }
}

@McpModule({ providers: [Plain], skills: { folders: [SKILLS], watch: false } })
class SkillsModule {}

type Entry = { uri: string; frontmatter: Record<string, unknown>; resources: { uri: string; digest: string; size: number }[] | 'dynamic' };
type Contents = { uri: string; mimeType?: string; text?: string; blob?: string };

const digest = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
/** The bytes a resources/read answer carries. */
const bytesOf = (c: Contents) => (c.blob !== undefined ? Buffer.from(c.blob, 'base64') : Buffer.from(c.text!, 'utf8'));

/** Skills served from a folder, over the in-memory handshake transport. */
describe('skills from a folder', () => {
  let app: McpApplication;
  let client: McpTestClient;
  beforeAll(async () => {
    app = await McpApplication.create(SkillsModule, quiet);
    client = await McpTestClient.connect(app.connectInMemory());
  });
  afterAll(() => app.close());

  const list = async () => ((await client.request('skills/list', {})) as { skills: Entry[] }).skills;
  const read = async (uri: string) => ((await client.request('resources/read', { uri })) as { contents: Contents[] }).contents[0];

  it('declares the extension with directoryRead, and the resources capability', () => {
    const caps = client.initializeResult!.capabilities as Record<string, Record<string, unknown>>;
    expect(caps.extensions).toEqual({ [EXTENSION]: { directoryRead: true } });
    expect(caps.resources).toBeDefined();
  });

  it('lists every skill, nested ones included, with its frontmatter as written', async () => {
    const skills = await list();
    expect(skills.map((s) => s.uri)).toEqual([
      'skill://acme/billing/refunds/SKILL.md',
      'skill://git-workflow/SKILL.md',
      'skill://pdf-processing/SKILL.md',
      'skill://pdf-processing/forms/SKILL.md',
    ]);
    expect(skills.find((s) => s.uri === 'skill://pdf-processing/SKILL.md')!.frontmatter).toEqual({
      name: 'pdf-processing',
      description: 'Extract, fill, and assemble PDF documents',
      license: 'Apache-2.0',
      metadata: { version: '2.1.0', tags: 'pdf forms' },
    });
  });

  it("lists a complete manifest of each skill's files whose digests and sizes match what resources/read returns", async () => {
    const pdf = (await list()).find((s) => s.uri === 'skill://pdf-processing/SKILL.md')!;
    const resources = pdf.resources as { uri: string; digest: string; size: number }[];
    expect(resources.map((r) => r.uri)).toEqual([
      'skill://pdf-processing/SKILL.md',
      'skill://pdf-processing/assets/logo.png',
      'skill://pdf-processing/forms/SKILL.md',
      'skill://pdf-processing/references/FORMS.md',
      'skill://pdf-processing/scripts/extract.py',
      'skill://pdf-processing/templates/invoice.md',
      'skill://pdf-processing/templates/purchase-order.md',
      'skill://pdf-processing/templates/regional/eu-invoice.md',
    ]);
    for (const resource of resources) {
      const onDisk = readFileSync(join(SKILLS, resource.uri.slice('skill://'.length)));
      expect(resource).toEqual({ uri: resource.uri, digest: digest(onDisk), size: onDisk.length });
      const contents = await read(resource.uri);
      expect(digest(bytesOf(contents))).toBe(resource.digest);
    }
    expect((await read('skill://pdf-processing/SKILL.md')).mimeType).toBe('text/markdown');
    const logo = await read('skill://pdf-processing/assets/logo.png');
    expect(logo).toMatchObject({ mimeType: 'image/png', blob: expect.any(String) });
    expect((await read('skill://pdf-processing/scripts/extract.py')).mimeType).toBe('text/x-python');
  });

  it('gets one skill by the URI of its SKILL.md, as listed; an unknown URI is -32602', async () => {
    const listed = (await list()).find((s) => s.uri === 'skill://acme/billing/refunds/SKILL.md');
    expect(await client.request('skills/get', { uri: 'skill://acme/billing/refunds/SKILL.md' })).toEqual({ skill: listed });
    for (const uri of ['skill://acme/billing/chargebacks/SKILL.md', 'skill://pdf-processing/references/FORMS.md', 'skill://acme', '']) {
      await expect(client.request('skills/get', { uri })).rejects.toMatchObject({ code: -32602 });
    }
    await expect(client.request('skills/get', {})).rejects.toMatchObject({ code: -32602 });
  });

  it("lists each SKILL.md in resources/list under the skill's name and description", async () => {
    const { resources } = (await client.request('resources/list', {})) as { resources: Record<string, unknown>[] };
    expect(resources.find((r) => r.uri === 'skill://git-workflow/SKILL.md')).toEqual({
      uri: 'skill://git-workflow/SKILL.md',
      name: 'git-workflow',
      description: "Follow this team's Git conventions for branching and commits",
      mimeType: 'text/markdown',
      size: readFileSync(join(SKILLS, 'git-workflow', 'SKILL.md')).length,
    });
  });

  it('reads directories: direct children, subfolders as inode/directory, folders above a skill too', async () => {
    const dir = async (uri: string) => ((await client.request('resources/directory/read', { uri })) as { resources: Contents[] }).resources;
    expect(await dir('skill://pdf-processing/templates')).toEqual([
      { uri: 'skill://pdf-processing/templates/invoice.md', name: 'invoice.md', mimeType: 'text/markdown', size: expect.any(Number) },
      {
        uri: 'skill://pdf-processing/templates/purchase-order.md',
        name: 'purchase-order.md',
        mimeType: 'text/markdown',
        size: expect.any(Number),
      },
      { uri: 'skill://pdf-processing/templates/regional', name: 'regional', mimeType: 'inode/directory' },
    ]);
    expect((await dir('skill://pdf-processing')).map((r) => r.uri)).toEqual([
      'skill://pdf-processing/SKILL.md',
      'skill://pdf-processing/assets',
      'skill://pdf-processing/forms',
      'skill://pdf-processing/references',
      'skill://pdf-processing/scripts',
      'skill://pdf-processing/templates',
    ]);
    expect(await dir('skill://acme')).toEqual([{ uri: 'skill://acme/billing', name: 'billing', mimeType: 'inode/directory' }]);
    for (const uri of ['skill://pdf-processing/SKILL.md', 'skill://pdf-processing/nothing', 'skill://elsewhere', 'file:///etc']) {
      await expect(dir(uri)).rejects.toMatchObject({ code: -32602 });
    }
  });

  it('answers hostile URIs as unknown resources, and goes on serving', async () => {
    const hostile = [
      'skill://pdf-processing/../git-workflow/SKILL.md',
      'skill://pdf-processing/%2e%2e/git-workflow/SKILL.md',
      'skill://pdf-processing/references%2F..%2F..%2Fgit-workflow%2FSKILL.md',
      'skill://pdf-processing/references/../SKILL.md',
      'skill:///etc/passwd',
      'skill://pdf-processing/.hidden',
      `skill://pdf-processing/${'a/'.repeat(5000)}x`,
    ];
    for (const uri of hostile) await expect(read(uri)).rejects.toMatchObject({ code: -32002 });
    expect((await read('skill://git-workflow/SKILL.md')).text).toContain('# Git workflow');
  });
});

/** A skills folder of the test's own, in a temporary directory. */
function folder(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-skills-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}
const skillMd = (name: string, description = `The ${name} skill`, extra = '') =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n# ${name}\n`;

@McpModule({ providers: [] })
class EmptyModule {}

describe('skill folders that break a rule fail create with a named definition error', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const failure = async (files: Record<string, string | Buffer>) => {
    const dir = folder(files);
    dirs.push(dir);
    return McpApplication.create(EmptyModule, { ...quiet, skills: { folders: [dir], watch: false } }).then(
      () => {
        throw new Error('create succeeded');
      },
      (error: unknown) => error as Error,
    );
  };

  it.each([
    [
      'a name that differs from its folder',
      { 'tools/SKILL.md': skillMd('toolbox') },
      /Skill "tools".*name "toolbox" must equal its folder's name "tools"/,
    ],
    ['no description', { 'tools/SKILL.md': '---\nname: tools\n---\n' }, /Skill "tools".*non-empty "description"/],
    ['a name against the naming rules', { 'Bad--Name/SKILL.md': skillMd('Bad--Name') }, /Skill "Bad--Name".*naming rules/],
    ['no frontmatter', { 'tools/SKILL.md': '# tools\n' }, /Skill "tools".*must begin with YAML frontmatter/],
    ['frontmatter that is not YAML', { 'tools/SKILL.md': '---\nname: [tools\n---\n' }, /Skill "tools".*not valid YAML/],
    ['a SKILL.md at the folder root', { 'SKILL.md': skillMd('root') }, /has a SKILL.md of its own/],
    [
      'more than 512 files',
      Object.fromEntries([['many/SKILL.md', skillMd('many')], ...Array.from({ length: 512 }, (_, i) => [`many/f${i}.txt`, 'x'])]),
      /Skill "many".*513 files, more than the 512/,
    ],
    [
      'more than 16 MiB',
      { 'big/SKILL.md': skillMd('big'), 'big/blob.bin': Buffer.alloc(16 * 1024 * 1024) },
      /Skill "big".*more than the 16777216 \(16 MiB\)/,
    ],
  ])('%s', async (_what, files, message) => {
    const error = await failure(files);
    expect(error).toBeInstanceOf(InvalidDefinitionError);
    expect(error.message).toMatch(message);
  });

  it('names a folder that does not exist', async () => {
    await expect(McpApplication.create(EmptyModule, { ...quiet, skills: { folders: ['/nonexistent/skills'] } })).rejects.toThrow(
      /Skills folder "\/nonexistent\/skills".*cannot be read/,
    );
  });
});

describe('skill folders on disk', () => {
  let dir: string;
  let app: McpApplication;
  let client: McpTestClient;
  afterEach(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves no file through a link that leaves the skill, nor a hidden file', async () => {
    dir = folder({ 'notes/SKILL.md': skillMd('notes'), 'notes/.env': 'SECRET=1', 'outside.txt': 'not a skill file' });
    symlinkSync('/etc/hostname', join(dir, 'notes', 'host'));
    symlinkSync(join(dir, 'outside.txt'), join(dir, 'notes', 'outside'));
    symlinkSync(join(dir, 'notes', 'SKILL.md'), join(dir, 'notes', 'again.md'));
    app = await McpApplication.create(EmptyModule, { ...quiet, skills: { folders: [dir], watch: false } });
    client = await McpTestClient.connect(app.connectInMemory());
    const { skill } = (await client.request('skills/get', { uri: 'skill://notes/SKILL.md' })) as { skill: Entry };
    expect((skill.resources as { uri: string }[]).map((r) => r.uri)).toEqual(['skill://notes/SKILL.md', 'skill://notes/again.md']);
    for (const uri of ['skill://notes/host', 'skill://notes/outside', 'skill://notes/.env', 'skill://outside.txt'])
      await expect(client.request('resources/read', { uri })).rejects.toMatchObject({ code: -32002 });
  });

  it("types each file by its extension (mime-db's types, and the ones skills need where they differ)", async () => {
    const files: Record<string, [content: string | Buffer, mimeType: string, sent: 'text' | 'blob']> = {
      'SKILL.md': [skillMd('notes'), 'text/markdown', 'text'],
      'config.yaml': ['a: 1\n', 'application/yaml', 'text'],
      'tool.ts': ['export {};\n', 'text/x-typescript', 'text'],
      'run.sh': ['echo hi\n', 'text/x-shellscript', 'text'],
      'run.py': ['print(1)\n', 'text/x-python', 'text'],
      'main.c': ['int main(void) { return 0; }\n', 'text/x-c', 'text'],
      'data.csv': ['a,b\n', 'text/csv', 'text'],
      'doc.pdf': [Buffer.from('%PDF-1.4\n'), 'application/pdf', 'blob'],
      'sound.mp3': [Buffer.from([0xff, 0xfb, 0x90]), 'audio/mpeg', 'blob'],
      'data.unknown-extension': ['x', 'application/octet-stream', 'blob'],
      LICENSE: ['MIT', 'application/octet-stream', 'blob'],
    };
    dir = folder(Object.fromEntries(Object.entries(files).map(([name, [content]]) => [`notes/${name}`, content])));
    app = await McpApplication.create(EmptyModule, { ...quiet, skills: { folders: [dir], watch: false } });
    client = await McpTestClient.connect(app.connectInMemory());
    const expected = Object.fromEntries(Object.entries(files).map(([name, [, mimeType, sent]]) => [name, { mimeType, sent }]));
    const read: Record<string, { mimeType?: string; sent: string }> = {};
    for (const name of Object.keys(files)) {
      const contents = ((await client.request('resources/read', { uri: `skill://notes/${name}` })) as { contents: Contents[] }).contents[0];
      read[name] = { mimeType: contents.mimeType, sent: contents.blob === undefined ? 'text' : 'blob' };
    }
    expect(read).toEqual(expected);
    const listed = ((await client.request('resources/directory/read', { uri: 'skill://notes' })) as { resources: Contents[] }).resources;
    expect(Object.fromEntries(listed.map((r) => [r.uri.slice('skill://notes/'.length), r.mimeType]))).toEqual(
      Object.fromEntries(Object.entries(files).map(([name, [, mimeType]]) => [name, mimeType])),
    );
  });

  it('follows edits when watched: a changed file changes its digest in the next skills/get, a new skill is listed', async () => {
    dir = folder({ 'notes/SKILL.md': skillMd('notes'), 'notes/guide.md': 'first' });
    const errors: string[] = [];
    const logger = { ...quiet.logger, error: (message: string) => void errors.push(message) };
    app = await McpApplication.create(EmptyModule, { logger, skills: { folders: [dir], watch: true } });
    client = await McpTestClient.connect(app.connectInMemory());
    const guide = async () => {
      const { skill } = (await client.request('skills/get', { uri: 'skill://notes/SKILL.md' })) as { skill: Entry };
      return (skill.resources as { uri: string; digest: string }[]).find((r) => r.uri === 'skill://notes/guide.md')!.digest;
    };
    expect(await guide()).toBe(digest(Buffer.from('first')));
    const listChanged = client.waitForNotification((n) => n.method === 'notifications/resources/list_changed');
    writeFileSync(join(dir, 'notes', 'guide.md'), 'second, longer');
    await waitFor(async () => (await guide()) === digest(Buffer.from('second, longer')), { what: 'the new digest' });
    mkdirSync(join(dir, 'more'));
    writeFileSync(join(dir, 'more', 'SKILL.md'), skillMd('more'));
    await waitFor(async () => ((await client.request('skills/list', {})) as { skills: Entry[] }).skills.length === 2, {
      what: 'the new skill',
    });
    await listChanged;
    // A skill broken by an edit is reported; the previous skills stay served.
    const reported = errors.length;
    writeFileSync(join(dir, 'more', 'SKILL.md'), '# no frontmatter\n');
    await waitFor(() => errors.slice(reported).some((m) => m.startsWith('The skill folders changed, but could not be served')), {
      what: 'the broken skill reported',
    });
    expect(((await client.request('skills/list', {})) as { skills: Entry[] }).skills.map((s) => s.uri)).toEqual([
      'skill://more/SKILL.md',
      'skill://notes/SKILL.md',
    ]);
  });

  it('watches the folders under `mcpkit dev` (MCPKIT_DEV=1) and not by default', async () => {
    dir = folder({ 'notes/SKILL.md': skillMd('notes'), 'notes/guide.md': 'first' });
    const digestIn = async (client: McpTestClient) => {
      const { skill } = (await client.request('skills/get', { uri: 'skill://notes/SKILL.md' })) as { skill: Entry };
      return (skill.resources as { uri: string; digest: string }[]).find((r) => r.uri === 'skill://notes/guide.md')!.digest;
    };
    app = await McpApplication.create(EmptyModule, { ...quiet, skills: { folders: [dir] } });
    client = await McpTestClient.connect(app.connectInMemory());
    const before = process.env.MCPKIT_DEV;
    process.env.MCPKIT_DEV = '1';
    const dev = await McpApplication.create(EmptyModule, { ...quiet, skills: { folders: [dir] } }).finally(() => {
      if (before === undefined) delete process.env.MCPKIT_DEV;
      else process.env.MCPKIT_DEV = before;
    });
    try {
      const devClient = await McpTestClient.connect(dev.connectInMemory());
      writeFileSync(join(dir, 'notes', 'guide.md'), 'second, longer');
      // Once the dev server has seen the edit, the default one, reading the same folder, still serves what it read.
      await waitFor(async () => (await digestIn(devClient)) === digest(Buffer.from('second, longer')), { what: 'the dev digest' });
      expect(await digestIn(client)).toBe(digest(Buffer.from('first')));
    } finally {
      await dev.close();
    }
  });
});

describe('skills written in code', () => {
  let app: McpApplication;
  let client: McpTestClient;
  beforeAll(async () => {
    app = await McpApplication.create(EmptyModule, quiet);
    client = await McpTestClient.connect(app.connectInMemory());
  });
  afterAll(() => app.close());

  it('serves a skill of fixed text with digests, its SKILL.md written from its frontmatter and instructions', async () => {
    app.addSkill({
      name: 'house-style',
      description: 'Write in the house style',
      prefix: 'acme/docs',
      frontmatter: { license: 'MIT', metadata: { owner: 'docs-team' } },
      instructions: '# House style\n\nShort sentences. See `examples/good.md`.\n',
      files: { 'examples/good.md': 'Short. Plain.\n', 'assets/mark.bin': new Uint8Array([0, 1, 2, 255]) },
    });
    const uri = 'skill://acme/docs/house-style/SKILL.md';
    const { skill } = (await client.request('skills/get', { uri })) as { skill: Entry };
    expect(skill.frontmatter).toEqual({
      name: 'house-style',
      description: 'Write in the house style',
      license: 'MIT',
      metadata: { owner: 'docs-team' },
    });
    const resources = skill.resources as { uri: string; digest: string; size: number }[];
    expect(resources.map((r) => r.uri)).toEqual([
      uri,
      'skill://acme/docs/house-style/examples/good.md',
      'skill://acme/docs/house-style/assets/mark.bin',
    ]);
    for (const resource of resources) {
      const contents = ((await client.request('resources/read', { uri: resource.uri })) as { contents: Contents[] }).contents[0];
      expect({ digest: digest(bytesOf(contents)), size: bytesOf(contents).length }).toEqual({
        digest: resource.digest,
        size: resource.size,
      });
    }
    const text = ((await client.request('resources/read', { uri })) as { contents: Contents[] }).contents[0].text!;
    expect(text).toMatch(
      /^---\nname: house-style\ndescription: Write in the house style\nlicense: MIT\nmetadata:\n {2}owner: docs-team\n---\n/,
    );
    expect(text).toContain('# House style');
    expect(app.removeSkill(uri)).toBe(true);
    await expect(client.request('skills/get', { uri })).rejects.toMatchObject({ code: -32602 });
    expect(app.removeSkill(uri)).toBe(false);
  });

  it('serves a generated skill as "dynamic", writing it for each read with the request context', async () => {
    let reads = 0;
    app.addSkill({
      name: 'server-guide',
      description: 'How to use this server',
      instructions: (ctx) => `# Guide\n\nRead ${++reads} for ${ctx.session.clientInfo?.name ?? 'someone'}.\n`,
    });
    const uri = 'skill://server-guide/SKILL.md';
    const { skill } = (await client.request('skills/get', { uri })) as { skill: Entry };
    expect(skill.resources).toBe('dynamic');
    const read = async () => ((await client.request('resources/read', { uri })) as { contents: Contents[] }).contents[0].text!;
    expect(await read()).toContain('Read 1 for mcpkit-test-client.');
    expect(await read()).toContain('Read 2 for mcpkit-test-client.');
    expect((await read()).startsWith('---\nname: server-guide\ndescription: How to use this server\n---\n')).toBe(true);
  });

  it("writes each frontmatter field on one line, however long (hosts' small YAML parsers read no folded value)", async () => {
    const description = `Start here: the desk's open tickets right now, ${'and which skill to use for each, '.repeat(4)}in one place`;
    app.addSkill({ name: 'long-one', description, instructions: '# Long' });
    const text = ((await client.request('resources/read', { uri: 'skill://long-one/SKILL.md' })) as { contents: Contents[] }).contents[0]
      .text!;
    expect(text.split('\n')[2]).toBe(`description: ${JSON.stringify(description)}`);
  });

  it('refuses a skill that breaks a rule or takes a URI served already, naming it', () => {
    const base = { name: 'ok-name', description: 'fine', instructions: '# ok' };
    app.addSkill(base);
    expect(() => app.addSkill(base)).toThrow(/Skill skill:\/\/ok-name\/SKILL.md: is already served/);
    expect(() => app.addSkill({ ...base, name: 'Not OK' })).toThrow(InvalidDefinitionError);
    expect(() => app.addSkill({ ...base, name: 'x', description: '' })).toThrow(/non-empty "description"/);
    expect(() => app.addSkill({ ...base, name: 'y', files: { '../escape.md': 'x' } })).toThrow(
      /relative path of plain folder and file names/,
    );
    expect(() => app.addSkill({ ...base, name: 'z', prefix: 'a//b' })).toThrow(/prefix "a\/\/b"/);
    expect(() => app.addSkill({ ...base, name: 'w', frontmatter: { weight: Infinity } })).toThrow(/frontmatter.weight is Infinity/);
  });
});

describe('the optional frontmatter fields of the Agent Skills specification', () => {
  it.each([
    ['metadata with a list', 'metadata:\n  tags: [a, b]\n', /"metadata" must map names to strings/],
    ['metadata with a number', 'metadata:\n  version: 2\n', /"metadata" must map names to strings/],
    ['a license that is no string', 'license: 3\n', /"license" must be a string/],
    ['allowed-tools as a list', 'allowed-tools: [Read]\n', /"allowed-tools" must be a string/],
    ['compatibility over 500 characters', `compatibility: ${'x'.repeat(501)}\n`, /"compatibility" is longer than 500/],
  ])('refuses %s', async (_what, extra, message) => {
    const dir = folder({ 'tools/SKILL.md': skillMd('tools', 'Tools', extra) });
    try {
      await expect(McpApplication.create(EmptyModule, { ...quiet, skills: { folders: [dir], watch: false } })).rejects.toThrow(message);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

@injectable()
class Catalogue {
  readonly products = ['anvil', 'rocket skates'];
}

@injectable()
class GuideSkills {
  constructor(private readonly catalogue: Catalogue) {}

  @Skill({ name: 'ordering', prefix: 'acme', description: 'How to place an order with this server', frontmatter: { license: 'MIT' } })
  ordering(ctx: McpContext) {
    return `# Ordering\n\nProducts: ${this.catalogue.products.join(', ')}.\nAsked by ${ctx.session.clientInfo?.name}.\n`;
  }

  @RequireScopes('staff')
  @Skill({ name: 'refunds-desk', description: 'How staff refund an order' })
  refunds() {
    return '# Refunds desk\n';
  }
}

@McpModule({ providers: [Catalogue, GuideSkills] })
class GuideModule {}

describe('@Skill methods', () => {
  let app: McpApplication;
  beforeAll(async () => {
    app = await McpApplication.create(GuideModule, quiet);
  });
  afterAll(() => app.close());

  it('serve the skill the method writes, from its provider, as "dynamic", its access decorators applied', async () => {
    const client = await McpTestClient.connect(app.connectInMemory({ auth: { token: 't', clientId: 'c', scopes: [], subject: 's' } }));
    const { skills } = (await client.request('skills/list', {})) as { skills: Entry[] };
    expect(skills).toEqual([
      {
        uri: 'skill://acme/ordering/SKILL.md',
        frontmatter: { name: 'ordering', description: 'How to place an order with this server', license: 'MIT' },
        resources: 'dynamic',
      },
    ]);
    const text = ((await client.request('resources/read', { uri: 'skill://acme/ordering/SKILL.md' })) as { contents: Contents[] })
      .contents[0].text;
    expect(text).toBe(
      '---\nname: ordering\ndescription: How to place an order with this server\nlicense: MIT\n---\n\n# Ordering\n\nProducts: anvil, rocket skates.\nAsked by mcpkit-test-client.\n',
    );
    await expect(client.request('resources/read', { uri: 'skill://refunds-desk/SKILL.md' })).rejects.toMatchObject({ code: -32003 });
    const staff = await McpTestClient.connect(
      app.connectInMemory({ auth: { token: 't', clientId: 'c', scopes: ['staff'], subject: 's' } }),
    );
    expect(((await staff.request('skills/list', {})) as { skills: Entry[] }).skills.map((s) => s.uri)).toEqual([
      'skill://acme/ordering/SKILL.md',
      'skill://refunds-desk/SKILL.md',
    ]);
  });

  it('refuse options without a name or description, and a name against the rules at create', async () => {
    expect(() => Skill({ name: '', description: 'x' })({}, 'm', {})).toThrow(/name must be a non-empty string/);
    expect(() => Skill({ name: 'x' } as never)({}, 'm', {})).toThrow(/description must be a non-empty string/);
    class Broken {
      @Skill({ name: 'Bad Name', description: 'x' })
      bad() {
        return '';
      }
    }
    @McpModule({ providers: [Broken] })
    class BrokenModule {}
    await expect(McpApplication.create(BrokenModule, quiet)).rejects.toThrow(/Skill "Bad Name".*naming rules/);
  });
});
