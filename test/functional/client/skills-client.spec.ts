import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpApplication, McpModule } from '../../../src';
import { McpClient, SkillsClient, SkillVerificationError } from '../../../src/client';
import { ROOT } from '../../helpers/paths';

const quiet = { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } };

@McpModule({ providers: [] })
class EmptyModule {}

/** mcpkit's own client reading skills, in both eras: every file verified, a stale or foreign one refused. */
describe.each(['handshake', 'per-request'] as const)('SkillsClient over McpClient (%s)', (era) => {
  let dir: string;
  let app: McpApplication;
  let client: McpClient;
  let skills: SkillsClient;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpkit-skills-client-'));
    cpSync(join(ROOT, 'test', 'fixtures', 'skills'), dir, { recursive: true });
    // Not watched: an edit below makes the served entry stale, as a file changed behind a host's back.
    app = await McpApplication.create(EmptyModule, { ...quiet, skills: { folders: [dir], watch: false } });
    client = new McpClient({ era });
    await client.connect(app.connectInMemory());
    skills = new SkillsClient(client);
  });
  afterAll(async () => {
    await client.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists, gets and reads every file of a skill, each verified, its SKILL.md split into frontmatter and body', async () => {
    expect({ supported: skills.supported, directoryRead: skills.directoryRead }).toEqual({ supported: true, directoryRead: true });
    expect((await skills.list()).map((s) => s.uri)).toHaveLength(4);
    const skill = await skills.get('skill://pdf-processing/SKILL.md');
    const own = await skills.read(skill);
    expect(own).toMatchObject({ verified: true, frontmatter: skill.frontmatter });
    expect(own.body).toMatch(/^\n# PDF processing/);
    for (const { uri, size } of skill.resources as { uri: string; size: number }[]) {
      const file = await skills.read(skill, uri);
      expect({ verified: file.verified, size: file.bytes.length }).toEqual({ verified: true, size });
    }
    expect((await skills.read(skill, './templates/../references/FORMS.md')).text).toContain('# Form fields');
    expect((await skills.readDirectory('skill://pdf-processing/templates')).map((r) => r.name)).toEqual([
      'invoice.md',
      'purchase-order.md',
      'regional',
    ]);
  });

  it('refuses a file not in the entry, or leaving the skill, before asking the server', async () => {
    const skill = await skills.get('skill://git-workflow/SKILL.md');
    await expect(skills.read(skill, 'secrets.md')).rejects.toMatchObject({ reason: 'unlisted', uri: 'skill://git-workflow/secrets.md' });
    await expect(skills.read(skill, '../pdf-processing/SKILL.md')).rejects.toMatchObject({ reason: 'unlisted' });
    await expect(skills.read(skill, 'skill://pdf-processing/SKILL.md')).rejects.toBeInstanceOf(SkillVerificationError);
  });

  it('refuses content that no longer matches the entry: another size, or the same size and another digest', async () => {
    const skill = await skills.get('skill://acme/billing/refunds/SKILL.md');
    const email = join(dir, 'acme', 'billing', 'refunds', 'examples', 'email.md');
    const original = readFileSync(email, 'utf8');
    try {
      writeFileSync(email, `${original}P.S. Thank you.\n`);
      await expect(skills.read(skill, 'examples/email.md')).rejects.toMatchObject({
        reason: 'size',
        uri: 'skill://acme/billing/refunds/examples/email.md',
        message: expect.stringContaining('skill://acme/billing/refunds/examples/email.md'),
      });
      writeFileSync(email, original.replace('Dear', 'DEAR'));
      await expect(skills.read(skill, 'examples/email.md')).rejects.toMatchObject({ reason: 'digest' });
    } finally {
      writeFileSync(email, original);
    }
    expect((await skills.read(skill, 'examples/email.md')).verified).toBe(true);
  });
});
