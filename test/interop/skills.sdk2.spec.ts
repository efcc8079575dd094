import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/paths';
import { type Sdk2Client, sdk2, sdk2Skills, sdk2Stdio } from '../helpers/sdk2';
import { spawnHttpServer } from '../helpers/spawn-server';

const FIXTURE = join(ROOT, 'dist', 'test', 'fixtures', 'skills-server.js');
const SKILLS = join(ROOT, 'test', 'fixtures', 'skills');
const ERAS = [
  ['2025-11-25 (a session)', { mode: 'legacy' }],
  ['2026-07-28', { mode: { pin: '2026-07-28' } }],
] as const;
type Negotiation = (typeof ERAS)[number][1];

function client(negotiation: Negotiation): Sdk2Client {
  return new sdk2.Client({ name: 'skills-host', version: '2.4.0' }, { capabilities: {}, versionNegotiation: negotiation });
}

/**
 * The official 2.x client's Skills extension (SkillsClient) against mcpkit, over real HTTP and a real
 * stdio process, in both eras: it lists, gets, reads and verifies every skill, reads directories, and
 * hostile URIs are refused while the server keeps serving.
 */
describe.each(['http', 'stdio'] as const)('skills over %s', (transport) => {
  describe.each(ERAS)('SDK 2.x SkillsClient, %s', (_era, negotiation) => {
    let server: Awaited<ReturnType<typeof spawnHttpServer>> | undefined;
    let connected: Sdk2Client;
    let skills: InstanceType<typeof sdk2Skills.SkillsClient>;
    beforeAll(async () => {
      connected = client(negotiation);
      if (transport === 'http') {
        server = await spawnHttpServer(FIXTURE);
        await connected.connect(new sdk2.StreamableHTTPClientTransport(new URL(server.url)));
      } else {
        await connected.connect(
          new sdk2Stdio.StdioClientTransport({ command: process.execPath, args: [FIXTURE, '--stdio'], stderr: 'pipe' }),
        );
      }
      skills = new sdk2Skills.SkillsClient(connected);
    });
    afterAll(async () => {
      await connected?.close();
      await server?.stop();
    });

    it('sees the extension with directory reads, and lists every skill as valid', async () => {
      expect({ supported: skills.supported, directoryRead: skills.directoryRead }).toEqual({ supported: true, directoryRead: true });
      const listing = await skills.list();
      expect(listing.invalid).toEqual([]);
      expect(listing.skills.map((s) => s.uri)).toEqual([
        'skill://acme/billing/refunds/SKILL.md',
        'skill://generated/server-guide/SKILL.md',
        'skill://git-workflow/SKILL.md',
        'skill://pdf-processing/SKILL.md',
        'skill://pdf-processing/forms/SKILL.md',
      ]);
    });

    it('gets a skill and reads each of its files, every one verified against its size and digest', async () => {
      const { skill } = await skills.get('skill://pdf-processing/SKILL.md');
      const own = await skills.read(skill);
      expect({ verified: own.verified, frontmatter: own.frontmatter }).toEqual({ verified: true, frontmatter: skill.frontmatter });
      expect(own.body).toContain('# PDF processing');
      for (const file of skill.resources as { uri: string; size: number }[]) {
        const read = await skills.read(skill, file.uri);
        expect({ verified: read.verified, size: read.bytes.length }).toEqual({ verified: true, size: file.size });
      }
      const forms = await skills.read(skill, 'references/FORMS.md');
      expect(forms.text).toContain('# Form fields');
    });

    it('reads a generated skill, unverified as the spec says, made for this client', async () => {
      const { skill } = await skills.get('skill://generated/server-guide/SKILL.md');
      expect(skill.resources).toBe('dynamic');
      const guide = await skills.read(skill);
      expect(guide.verified).toBe(false);
      expect(guide.body).toContain('Hello skills-host');
    });

    it('reads directories: files and subfolders', async () => {
      const { resources } = await skills.readDirectory('skill://pdf-processing/templates');
      expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([
        ['skill://pdf-processing/templates/invoice.md', 'text/markdown'],
        ['skill://pdf-processing/templates/purchase-order.md', 'text/markdown'],
        ['skill://pdf-processing/templates/regional', 'inode/directory'],
      ]);
    });

    // -32602 in both eras: the 2.x client reads a 2025-11-25 server's -32002 (resource not found) as -32602.
    it('refuses hostile and unknown URIs as not found, and goes on serving', async () => {
      for (const uri of [
        'skill://pdf-processing/../git-workflow/SKILL.md',
        'skill://pdf-processing/references%2F..%2F..%2Fgit-workflow%2FSKILL.md',
        'skill://pdf-processing/templates/regional/../../../../etc/passwd',
        'skill:///etc/passwd',
      ]) {
        await expect(connected.readResource({ uri })).rejects.toMatchObject({ code: -32602 });
      }
      await expect(skills.get('skill://nope/SKILL.md')).rejects.toMatchObject({ code: -32602 });
      expect((await skills.list()).skills).toHaveLength(5);
    });
  });
});

describe('a skill edited on disk in a watched folder, to an SDK 2.x client over HTTP', () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof spawnHttpServer>>;
  let connected: Sdk2Client;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpkit-skills-edit-'));
    cpSync(SKILLS, dir, { recursive: true });
    server = await spawnHttpServer(FIXTURE, { SKILLS_DIR: dir, SKILLS_WATCH: '1' });
    connected = client({ mode: { pin: '2026-07-28' } });
    await connected.connect(new sdk2.StreamableHTTPClientTransport(new URL(server.url)));
  });
  afterAll(async () => {
    await connected?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gets the new digest in the next skills/get, and verifies the new content against it', async () => {
    const skills = new sdk2Skills.SkillsClient(connected);
    const uri = 'skill://git-workflow/SKILL.md';
    const before = (await skills.get(uri)).skill;
    writeFileSync(join(dir, 'git-workflow', 'SKILL.md'), `${(await skills.read(before)).text}\nRebase before you merge.\n`);
    let after = before;
    const deadline = Date.now() + 5_000;
    while (JSON.stringify(after.resources) === JSON.stringify(before.resources) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      after = (await skills.get(uri, { timeout: 2_000 })).skill;
    }
    expect(after.resources).not.toEqual(before.resources);
    const read = await skills.read(after);
    expect(read.verified).toBe(true);
    expect(read.text).toContain('Rebase before you merge.');
    // The entry held from before no longer matches what the server serves.
    await expect(skills.read(before)).rejects.toMatchObject({ reason: expect.stringMatching(/size|digest/) });
  });
});
