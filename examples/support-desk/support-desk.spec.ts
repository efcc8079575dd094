import { join } from 'node:path';
import { example } from '../../test/helpers/examples';
import { ROOT } from '../../test/helpers/paths';
import { type Sdk2Client, sdk2, sdk2Skills, sdk2Stdio } from '../../test/helpers/sdk2';

const TSX_CLI = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** The support-desk example over stdio, read by the official SDK 2.x client's SkillsClient. */
describe('examples/support-desk', () => {
  let client: Sdk2Client;
  let skills: InstanceType<typeof sdk2Skills.SkillsClient>;
  beforeAll(async () => {
    client = new sdk2.Client({ name: 'desk-host', version: '1.0.0' }, { capabilities: {} });
    await client.connect(
      new sdk2Stdio.StdioClientTransport({
        command: process.execPath,
        args: [TSX_CLI, example('support-desk'), '--stdio'],
        cwd: ROOT,
        stderr: 'pipe',
      }),
    );
    skills = new sdk2Skills.SkillsClient(client);
  }, 30_000);
  afterAll(() => client?.close());

  it('lists the skills from files and the one written in code', async () => {
    const { skills: listed } = await skills.list();
    expect(listed.map((s) => [s.uri, Array.isArray(s.resources) ? s.resources.length : s.resources])).toEqual([
      ['skill://desk-today/SKILL.md', 'dynamic'],
      ['skill://refunds/SKILL.md', 3],
      ['skill://triage/SKILL.md', 1],
    ]);
    expect(client.getInstructions()).toContain('skill://desk-today/SKILL.md');
  });

  it('reads every file of the refunds skill, verified, and its templates folder', async () => {
    const { skill } = await skills.get('skill://refunds/SKILL.md');
    expect((await skills.read(skill)).frontmatter).toEqual({
      name: 'refunds',
      description: "Decide and answer a customer's refund request by the desk's policy",
      license: 'MIT',
      metadata: { owner: 'support' },
    });
    const granted = await skills.read(skill, 'templates/refund-granted.md');
    expect({ verified: granted.verified, text: granted.text }).toMatchObject({
      verified: true,
      text: expect.stringContaining('is on its way'),
    });
    const { resources } = await skills.readDirectory('skill://refunds/templates');
    expect(resources.map((r) => r.name)).toEqual(['refund-declined.md', 'refund-granted.md']);
  });

  it('writes desk-today from the open tickets at each read', async () => {
    const { skill } = await skills.get('skill://desk-today/SKILL.md');
    const before = await skills.read(skill);
    expect(before.body).toContain('2 open tickets');
    expect(before.body).toContain('#1 Ada: Order 1042 arrived broken, I want my money back. (use the refunds skill)');
    await client.callTool({ name: 'openTicket', arguments: { customer: 'Linus', text: 'Charged twice for order 7.' } });
    expect((await skills.read(skill)).body).toContain('3 open tickets');
  });
});
