import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { CLI, cleanEnv, run } from '../../helpers/cli';
import { ROOT } from '../../helpers/paths';

const ENTRY = join(ROOT, 'dist', 'samples', 'notes', 'main.js');

/** Each client: where its configuration lands (HOME and the project being temporary folders), and how it starts a server from it. */
const CLIENTS = [
  { id: 'claude-desktop', file: (home: string) => join(home, '.config', 'Claude', 'claude_desktop_config.json'), at: ['mcpServers'] },
  { id: 'claude-code', file: (_h: string, project: string) => join(project, '.mcp.json'), at: ['mcpServers'] },
  { id: 'cursor', file: (_h: string, project: string) => join(project, '.cursor', 'mcp.json'), at: ['mcpServers'] },
  { id: 'vscode', file: (_h: string, project: string) => join(project, '.vscode', 'mcp.json'), at: ['servers'] },
  { id: 'goose', file: (home: string) => join(home, '.config', 'goose', 'config.yaml'), at: ['extensions'] },
  { id: 'codex', file: (home: string) => join(home, '.codex', 'config.toml'), at: ['mcp_servers'] },
  { id: 'mcp-json', file: (_h: string, project: string) => join(project, 'mcp.json'), at: ['mcpServers'] },
] as const;

function read(file: string): Record<string, unknown> {
  const text = readFileSync(file, 'utf8');
  if (file.endsWith('.toml')) return parseToml(text);
  if (file.endsWith('.yaml')) return parseYaml(text) as Record<string, unknown>;
  return parseJsonc(text, [], { allowTrailingComma: true }) as Record<string, unknown>;
}

function entryOf(config: Record<string, unknown>, at: readonly string[], name: string): Record<string, unknown> {
  return (config[at[0]] as Record<string, Record<string, unknown>>)[name];
}

/**
 * `mcpkit install` writes each client's own configuration for a real project, beside what is there,
 * and the server it names starts from it the way the client starts it: from another working
 * directory, with nothing but the command, its arguments and its environment. The official SDK client
 * plays the client.
 */
describe('mcpkit install', () => {
  let home: string;
  let project: string;
  const install = (args: string[]) =>
    run(process.execPath, [CLI, 'install', ...args], { cwd: project, env: cleanEnv({ HOME: home, XDG_CONFIG_HOME: '', CODEX_HOME: '' }) });
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'mcpkit-home-'));
    project = mkdtempSync(join(tmpdir(), 'mcpkit-project-'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: '@acme/notes-server', version: '1.0.0' }));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  it.each(CLIENTS)('$id: the server it names starts over stdio from anywhere and lists its tools', async ({ id, file, at }) => {
    const done = await install([id, ENTRY, '--env', 'NOTES_MODE=demo']);
    expect(done).toMatchObject({ code: 0, stdout: '' });
    const path = file(home, project);
    expect(done.stderr).toContain(`added "notes-server"`);
    const entry = entryOf(read(path), at, 'notes-server');
    const command = String(entry.command ?? entry.cmd);
    const args = entry.args as string[];
    const env = (entry.env ?? entry.envs) as Record<string, string>;
    expect({ command, args, env }).toEqual({ command: process.execPath, args: [ENTRY, '--stdio'], env: { NOTES_MODE: 'demo' } });
    const client = new Client({ name: id, version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command, args, env: { ...env, PATH: process.env.PATH ?? '' }, cwd: tmpdir(), stderr: 'ignore' }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('addNote');
    await client.close();
  });

  it('writes a server over HTTP as each client documents it', async () => {
    const http = ['--http', 'https://notes.example.com/mcp', '--header', 'Authorization: Bearer t0k'];
    const shapes: Record<string, unknown> = {};
    for (const { id, file, at } of CLIENTS.filter((c) => c.id !== 'claude-desktop')) {
      expect((await install([id, ...http, '--name', 'remote'])).code).toBe(0);
      shapes[id] = entryOf(read(file(home, project)), at, 'remote');
    }
    const headers = { Authorization: 'Bearer t0k' };
    expect(shapes).toEqual({
      'claude-code': { type: 'http', url: 'https://notes.example.com/mcp', headers },
      cursor: { url: 'https://notes.example.com/mcp', headers },
      vscode: { type: 'http', url: 'https://notes.example.com/mcp', headers },
      goose: { name: 'remote', enabled: true, timeout: 300, type: 'streamable_http', uri: 'https://notes.example.com/mcp', headers },
      codex: { url: 'https://notes.example.com/mcp', http_headers: headers },
      'mcp-json': { type: 'http', url: 'https://notes.example.com/mcp', headers },
    });
    const desktop = await install(['claude-desktop', ...http]);
    expect(desktop.code).toBe(1);
    expect(desktop.stderr).toContain('Claude Desktop adds remote servers as connectors');
  });

  it('passes secrets the way each client reads them, and refuses where a client cannot', async () => {
    expect((await install(['vscode', ENTRY, '--secret', 'NOTES_TOKEN'])).code).toBe(0);
    const vscode = read(join(project, '.vscode', 'mcp.json'));
    expect(entryOf(vscode, ['servers'], 'notes-server').env).toEqual({ NOTES_TOKEN: '${input:NOTES_TOKEN}' });
    expect(vscode.inputs).toEqual([
      { type: 'promptString', id: 'NOTES_TOKEN', description: 'NOTES_TOKEN for notes-server', password: true },
    ]);
    expect((await install(['claude-code', ENTRY, '--secret', 'NOTES_TOKEN'])).code).toBe(0);
    expect(entryOf(read(join(project, '.mcp.json')), ['mcpServers'], 'notes-server').env).toEqual({ NOTES_TOKEN: '${NOTES_TOKEN}' });
    expect((await install(['cursor', ENTRY, '--secret', 'NOTES_TOKEN'])).code).toBe(0);
    expect(entryOf(read(join(project, '.cursor', 'mcp.json')), ['mcpServers'], 'notes-server').env).toEqual({
      NOTES_TOKEN: '${env:NOTES_TOKEN}',
    });
    const refused = await install(['claude-desktop', ENTRY, '--secret', 'NOTES_TOKEN']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('pass --env NOTES_TOKEN=<value>');
    expect(existsSync(join(home, '.config', 'Claude', 'claude_desktop_config.json'))).toBe(false);
  });

  it("keeps the user's other servers and settings, backs the file up, and leaves a file it cannot read alone", async () => {
    const desktop = join(home, '.config', 'Claude', 'claude_desktop_config.json');
    mkdirSync(join(home, '.config', 'Claude'), { recursive: true });
    const before = JSON.stringify({ mcpServers: { mine: { command: 'mine' } }, globalShortcut: 'Alt+Space' }, null, 2);
    writeFileSync(desktop, before);
    expect((await install(['claude-desktop', ENTRY])).code).toBe(0);
    expect(read(desktop)).toEqual({
      mcpServers: { mine: { command: 'mine' }, 'notes-server': { command: process.execPath, args: [ENTRY, '--stdio'] } },
      globalShortcut: 'Alt+Space',
    });
    expect(readFileSync(`${desktop}.bak`, 'utf8')).toBe(before);
    // Again: the entry is replaced, not doubled.
    const again = await install(['claude-desktop', ENTRY, '--', '--page-size=5']);
    expect(again.stderr).toContain('replaced "notes-server"');
    expect(entryOf(read(desktop), ['mcpServers'], 'notes-server').args).toEqual([ENTRY, '--stdio', '--page-size=5']);

    const codex = join(home, '.codex', 'config.toml');
    mkdirSync(join(home, '.codex'));
    writeFileSync(codex, '# my settings\nmodel = "o4"\n');
    expect((await install(['codex', ENTRY])).code).toBe(0);
    expect(readFileSync(codex, 'utf8').startsWith('# my settings\nmodel = "o4"\n')).toBe(true);

    const broken = join(project, '.mcp.json');
    writeFileSync(broken, '{ "mcpServers": { ');
    const refused = await install(['claude-code', ENTRY]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot read .*\.mcp\.json \(.*\); it is left as it is/);
    expect(readFileSync(broken, 'utf8')).toBe('{ "mcpServers": { ');
  });

  it("Codex: keeps the user's comments through installs, in the file and in its backup", async () => {
    const codex = join(home, '.codex', 'config.toml');
    mkdirSync(join(home, '.codex'));
    const mine = '# my settings\nmodel = "o4" # the one I pay for\n\n# my own server\n[mcp_servers.mine]\ncommand = "mine"\n';
    writeFileSync(codex, mine);
    for (const pageSize of ['5', '10', '20']) {
      const done = await install(['codex', ENTRY, '--', `--page-size=${pageSize}`]);
      expect(done.code).toBe(0);
    }
    for (const file of [codex, `${codex}.bak`]) expect(readFileSync(file, 'utf8').startsWith(mine)).toBe(true);
    expect(read(codex)).toEqual({
      model: 'o4',
      mcp_servers: { mine: { command: 'mine' }, 'notes-server': { command: process.execPath, args: [ENTRY, '--stdio', '--page-size=20'] } },
    });
    expect(entryOf(parseToml(readFileSync(`${codex}.bak`, 'utf8')), ['mcp_servers'], 'notes-server').args).toEqual([
      ENTRY,
      '--stdio',
      '--page-size=10',
    ]);
  });

  it("JSON: writes only its own entry, keeping the others' layout, one-line entries included", async () => {
    const cursor = join(project, '.cursor', 'mcp.json');
    mkdirSync(join(project, '.cursor'));
    const lines = ['    "mine": { "command": "mine", "args": ["--quiet"] },', '    "theirs": { "url": "https://theirs.example.com/mcp" }'];
    writeFileSync(cursor, `{\n  "mcpServers": {\n${lines.join('\n')}\n  }\n}\n`);
    expect((await install(['cursor', ENTRY])).code).toBe(0);
    expect((await install(['cursor', ENTRY, '--', '--page-size=5'])).stderr).toContain('replaced "notes-server"');
    const text = readFileSync(cursor, 'utf8');
    expect(text).toContain(`${lines[0]}\n`);
    expect(text).toContain(`${lines[1]},\n`);
    expect(read(cursor)).toEqual({
      mcpServers: {
        mine: { command: 'mine', args: ['--quiet'] },
        theirs: { url: 'https://theirs.example.com/mcp' },
        'notes-server': { command: process.execPath, args: [ENTRY, '--stdio', '--page-size=5'] },
      },
    });
  });

  it('warns when the Node it names is older than mcpkit or the project takes, naming both', async () => {
    const node = (version: string) => {
      const file = join(home, `node-${version}`);
      writeFileSync(file, `#!/bin/sh\necho ${version}\n`);
      chmodSync(file, 0o755);
      return file;
    };
    const old = await install(['claude-code', ENTRY, '--node', node('v20.11.1')]);
    expect(old.code).toBe(0);
    expect(old.stderr).toContain(`mcpkit: warning: the entry runs ${node('v20.11.1')}, Node v20.11.1, but mcpkit needs Node >=22`);
    expect(entryOf(read(join(project, '.mcp.json')), ['mcpServers'], 'notes-server').command).toBe(node('v20.11.1'));

    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'notes-server', version: '1.0.0', engines: { node: '^24.2 || >=26' } }),
    );
    const project22 = await install(['claude-code', ENTRY, '--node', node('v22.12.0')]);
    expect(project22.stderr).toMatch(/Node v22\.12\.0, but this project \(package\.json\) needs Node \^24\.2 \|\| >=26/);
    expect(project22.stderr).not.toContain('mcpkit needs');
    expect((await install(['claude-code', ENTRY, '--node', node('v24.3.0')])).stderr).not.toContain('warning');
  });

  it('takes a name of ASCII letters, digits, _ and -, and says so', async () => {
    expect(await install(['cursor', '--http', 'https://notes.example.com/mcp', '--name', 'café'])).toMatchObject({
      code: 2,
      stderr: 'mcpkit: --name must be 1-64 ASCII letters (a-z, A-Z), digits, _ or -, got "café": clients name its tools after it\n',
    });
  });

  it('prints the entry with --print and writes nothing; says what is wrong with a bad call', async () => {
    const printed = await install(['cursor', ENTRY, '--print']);
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual({ mcpServers: { 'notes-server': { command: process.execPath, args: [ENTRY, '--stdio'] } } });
    expect(existsSync(join(project, '.cursor'))).toBe(false);
    expect(await install(['nope'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown client "nope": one of claude-desktop'),
    });
    expect(await install(['goose', ENTRY, '--scope', 'project'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Goose has --scope user only'),
    });
    expect(await install(['cursor', '--http', 'ftp://x'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--http must be an http:// or https:// URL'),
    });
  });
});
