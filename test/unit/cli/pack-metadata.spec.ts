import { CliError } from '../../../src/cli/cli-error';
import { bundlePath } from '../../../src/cli/pack-bundle';
import { type PackageJson, mcpbManifest, readPackInfo, serverJson } from '../../../src/cli/pack-metadata';

const BASE: PackageJson = { name: '@acme/weather', version: '1.2.3', description: 'Forecasts', mcpName: 'io.github.acme/weather' };
const NOTHING_LISTED = {
  tools: [],
  prompts: [],
  promptsGenerated: false,
  listed: { capabilities: {}, tools: [], prompts: [], resources: [] },
};

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('what pack reads from package.json', () => {
  it.each([
    ['github:acme/weather', { url: 'https://github.com/acme/weather', source: 'github' }],
    ['acme/weather', { url: 'https://github.com/acme/weather', source: 'github' }],
    ['gitlab:acme/weather', { url: 'https://gitlab.com/acme/weather', source: 'gitlab' }],
    [
      { type: 'git', url: 'git+https://github.com/acme/mono.git', directory: 'packages/weather' },
      { url: 'https://github.com/acme/mono', source: 'github', subfolder: 'packages/weather' },
    ],
    ['git://git.example.com/weather.git', { url: 'https://git.example.com/weather' }],
  ])('turns the repository %j into a browsable URL and its forge', (repository, expected) => {
    expect(readPackInfo({ ...BASE, repository }).repository).toEqual(expected);
  });

  it('lists a repository the registry knows no forge of in the bundle only', () => {
    const info = readPackInfo({ ...BASE, author: 'Acme', bin: 'main.js', repository: 'https://git.example.com/weather' });
    expect(serverJson(info).repository).toBeUndefined();
    expect(mcpbManifest(info, NOTHING_LISTED, 'main.js').repository).toEqual({ type: 'git', url: 'https://git.example.com/weather' });
  });

  it.each([
    ['Ada Lovelace', { name: 'Ada Lovelace' }],
    ['Ada Lovelace <ada@example.com>', { name: 'Ada Lovelace', email: 'ada@example.com' }],
    ['Ada (https://ada.example.com)', { name: 'Ada', url: 'https://ada.example.com' }],
    [
      { name: 'Ada', email: 'ada@example.com' },
      { name: 'Ada', email: 'ada@example.com' },
    ],
    [{ email: 'nobody@example.com' }, undefined],
  ])('reads the author %j', (author, expected) => {
    expect(readPackInfo({ ...BASE, author }).author).toEqual(expected);
  });

  it('lists a private package only by its remotes, and refuses one with neither', () => {
    const remote = readPackInfo({ ...BASE, private: true, bin: 'main.js', mcpkit: { remotes: [{ url: 'https://mcp.example.com/mcp' }] } });
    expect(serverJson(remote)).not.toHaveProperty('packages');
    expect(serverJson(remote).remotes).toEqual([{ type: 'streamable-http', url: 'https://mcp.example.com/mcp' }]);
    expect(refusal(() => serverJson(readPackInfo({ ...BASE, private: true, bin: 'main.js' })))).toMatch(
      /^nothing to list in the MCP Registry/,
    );
    expect(refusal(() => serverJson(readPackInfo({ ...BASE })))).toMatch(/^nothing to list/);
  });

  it.each([
    [{ name: undefined }, 'package.json needs a "name" and a "version" to pack the server'],
    [{ version: '1.x' }, 'package.json "version" must be one exact version to pack, got "1.x"'],
    [{ description: '' }, 'package.json needs a "description": clients show it beside the server'],
    [{ mcpName: 'a/b/c' }, 'package.json "mcpName" must be a reverse-DNS name with one slash, such as io.github.you/server, got "a/b/c"'],
    [
      { mcpkit: { settings: { 'API-KEY': { description: 'k' } } } },
      'package.json "mcpkit.settings.API-KEY": a setting is named by its environment variable (letters, digits, _)',
    ],
    [{ mcpkit: { settings: { KEY: {} } } }, 'package.json "mcpkit.settings.KEY" needs a "description"'],
    [
      { mcpkit: { settings: { KEY: { description: 'k', default: [1] } } } },
      'package.json "mcpkit.settings.KEY": "default" must be a string, a number or a boolean',
    ],
    [{ mcpkit: { remotes: [{ url: 'ftp://x' }] } }, 'package.json "mcpkit.remotes[0]" needs an http(s) "url"'],
    [{ mcpkit: { remotes: { url: 'https://x' } } }, 'package.json "mcpkit.remotes" must be a list of { "url": ... }'],
  ])('refuses %j with a message naming the field', (change, message) => {
    expect(refusal(() => readPackInfo({ ...BASE, ...change }))).toBe(message);
  });

  it.each([
    ['one bin, whatever its name', { serve: 'dist/main.js' }, 'dist/main.js'],
    ['the bin named after the package, unscoped', { weather: 'dist/main.js', 'weather-admin': 'dist/admin.js' }, 'dist/main.js'],
    ['no bin npx could choose', { serve: 'dist/main.js', admin: 'dist/admin.js' }, undefined],
  ])('takes as the bin npx runs %s', (_name, bin, expected) => {
    const info = readPackInfo({ ...BASE, bin, mcpkit: { remotes: [{ url: 'https://mcp.example.com/mcp' }] } });
    expect(info.bin).toBe(expected);
    expect(serverJson(info).packages === undefined).toBe(expected === undefined);
  });

  it('refuses two settings that differ only in case: a bundle asks for each by one key', () => {
    expect(
      refusal(() => readPackInfo({ ...BASE, mcpkit: { settings: { API_KEY: { description: 'a' }, api_key: { description: 'b' } } } })),
    ).toBe('package.json "mcpkit.settings" names api_key twice, in other cases: a bundle asks for each once');
  });
});

describe('where an installed package goes in the bundle', () => {
  it.each([
    ['in the project', '/p', '/p', '/p/node_modules/koa', 'koa', 'node_modules/koa'],
    ['nested in the project', '/p', '/p', '/p/node_modules/a/node_modules/b', 'b', 'node_modules/a/node_modules/b'],
    ['hoisted to the workspace root', '/ws/pkgs/w', '/ws', '/ws/node_modules/koa', 'koa', 'node_modules/koa'],
    ['in the member of a workspace', '/ws/pkgs/w', '/ws', '/ws/pkgs/w/node_modules/koa', 'koa', 'node_modules/koa'],
    ['a workspace package outside node_modules', '/ws/pkgs/w', '/ws', '/ws/pkgs/shared', '@ws/shared', 'node_modules/@ws/shared'],
    ['linked from elsewhere', '/p', '/p', '/elsewhere/lib', '@ws/lib', 'node_modules/@ws/lib'],
  ])('%s', (_name, root, npmRoot, dir, name, expected) => {
    expect(bundlePath(root, npmRoot, dir, name)).toBe(expected);
  });
});
