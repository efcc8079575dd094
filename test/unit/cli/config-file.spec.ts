import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { withEntry, writeConfigEntry } from '../../../src/cli/config-file';

const SERVER = { command: '/usr/bin/node', args: ['/srv/app/dist/main.js', '--stdio'] };

describe("writing a server into a client's configuration", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcpkit-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('JSON: adds beside the servers there, keeps comments and trailing commas, and says when it replaced one', () => {
    const before = `{
  // servers of mine
  "servers": {
    "other": { "type": "http", "url": "https://example.com/mcp" }, // keep me
  },
  "inputs": [],
}
`;
    const added = withEntry(before, 'json', ['servers', 'notes'], SERVER);
    expect(added.replaced).toBe(false);
    expect(added.text).toContain('// servers of mine');
    expect(added.text).toContain('// keep me');
    const again = withEntry(added.text, 'json', ['servers', 'notes'], { ...SERVER, args: ['x'] });
    expect(again.replaced).toBe(true);
    const parsed = parseJsonc(again.text, [], { allowTrailingComma: true }) as { servers: Record<string, unknown> };
    expect(parsed.servers).toEqual({ other: { type: 'http', url: 'https://example.com/mcp' }, notes: { ...SERVER, args: ['x'] } });
  });

  it('JSON: makes the file, and its parents, when there is none; keeps no backup then', () => {
    const file = join(dir, '.cursor', 'mcp.json');
    const written = writeConfigEntry(file, 'json', ['mcpServers', 'notes'], SERVER);
    expect(written).toEqual({ file, backup: undefined, replaced: false });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ mcpServers: { notes: SERVER } });
  });

  it('keeps the file as it was in <file>.bak', () => {
    const file = join(dir, 'claude_desktop_config.json');
    const before = '{ "mcpServers": { "other": { "command": "other" } }, "globalShortcut": "Ctrl+Space" }\n';
    writeFileSync(file, before);
    const written = writeConfigEntry(file, 'json', ['mcpServers', 'notes'], SERVER);
    expect(readFileSync(written.backup!, 'utf8')).toBe(before);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      mcpServers: { other: { command: 'other' }, notes: SERVER },
      globalShortcut: 'Ctrl+Space',
    });
  });

  it.each([
    ['json', '{ "mcpServers": { "a": 1 ', 'cannot read'],
    ['json', '[1, 2]', 'not a JSON object'],
    ['json', '{ "mcpServers": [] }', '"mcpServers" is not an object'],
    ['yaml', 'extensions: [unclosed', 'cannot read'],
    ['toml', '[mcp_servers.a\ncommand = 1', 'cannot read'],
  ] as const)('refuses a %s file it cannot read or add to, and leaves it untouched: %s', (format, text, message) => {
    const file = join(dir, `config.${format}`);
    writeFileSync(file, text);
    const path = format === 'yaml' ? ['extensions', 'notes'] : format === 'toml' ? ['mcp_servers', 'notes'] : ['mcpServers', 'notes'];
    expect(() => writeConfigEntry(file, format, path, SERVER)).toThrow(message);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(`${file}.bak`)).toBe(false);
  });

  it('YAML: adds beside the extensions there and keeps the comments', () => {
    const before = `# Goose
GOOSE_PROVIDER: anthropic # the model's
extensions:
  developer:
    enabled: true
    type: builtin
`;
    const { text } = withEntry(before, 'yaml', ['extensions', 'notes'], { type: 'stdio', cmd: SERVER.command, args: SERVER.args });
    expect(text).toContain('# Goose');
    expect(text).toContain("# the model's");
    expect(parseYaml(text)).toEqual({
      GOOSE_PROVIDER: 'anthropic',
      extensions: { developer: { enabled: true, type: 'builtin' }, notes: { type: 'stdio', cmd: SERVER.command, args: SERVER.args } },
    });
  });

  it('TOML: replaces an entry where it is, its sub-tables too, keeping the comments and tables around it', () => {
    const mine = '# Codex\r\nmodel = "gpt-5" # mine\r\n\r\n';
    const theirs = '# theirs, next\r\n[mcp_servers."their server"]\r\ncommand = "theirs"\r\n';
    const before = `${mine}[mcp_servers.notes]\r\ncommand = "old"\r\n\r\n[mcp_servers.notes.env]\r\nOLD = "1"\r\n\r\n${theirs}`;
    const replaced = withEntry(before, 'toml', ['mcp_servers', 'notes'], { command: 'new', args: ['x'] });
    expect(replaced).toEqual({
      text: `${mine}[mcp_servers.notes]\r\ncommand = "new"\r\nargs = [ "x" ]\r\n\r\n${theirs}`,
      replaced: true,
    });
    // Written by hand as an inline table, the entry can only be replaced by rewriting the file from its data.
    const inline = withEntry('# c\n[mcp_servers]\nnotes = { command = "old" }\n', 'toml', ['mcp_servers', 'notes'], { command: 'new' });
    expect(parseToml(inline.text)).toEqual({ mcp_servers: { notes: { command: 'new' } } });
  });

  it('JSON: writes its own entry alone, in the indentation of the file, leaving one-line entries on one line', () => {
    const before = '{\n\t"mcpServers": {\n\t\t"other": { "command": "other" }\n\t}\n}\n';
    expect(withEntry(before, 'json', ['mcpServers', 'notes'], { command: 'n' }).text).toBe(
      '{\n\t"mcpServers": {\n\t\t"other": { "command": "other" },\n\t\t"notes": {\n\t\t\t"command": "n"\n\t\t}\n\t}\n}\n',
    );
  });

  it('TOML: appends a new table and keeps the file as it was above it', () => {
    const before = `# Codex
model = "gpt-5" # mine

[mcp_servers.other]
command = "other"
`;
    const added = withEntry(before, 'toml', ['mcp_servers', 'notes'], { ...SERVER, env: { MODE: 'prod' } });
    expect(added.replaced).toBe(false);
    expect(added.text.startsWith(before)).toBe(true);
    expect(parseToml(added.text)).toEqual({
      model: 'gpt-5',
      mcp_servers: { other: { command: 'other' }, notes: { ...SERVER, env: { MODE: 'prod' } } },
    });
    const replaced = withEntry(added.text, 'toml', ['mcp_servers', 'notes'], { command: 'x', args: [] });
    expect(replaced.replaced).toBe(true);
    expect(parseToml(replaced.text)).toEqual({
      model: 'gpt-5',
      mcp_servers: { other: { command: 'other' }, notes: { command: 'x', args: [] } },
    });
  });
});
