import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListRootsRequestSchema, type Root } from '@modelcontextprotocol/sdk/types.js';
import { connectExampleOverStdio, example } from '../../test/helpers/examples';

/**
 * The filesystem example over stdio, driven by the official SDK client, which declares roots and answers
 * `roots/list` from `roots` below. The tree:
 *
 *   shared/notes.txt, shared/sub/deep.txt      (the root the client shares)
 *   shared/alias -> sub/deep.txt               (a link that stays inside)
 *   shared/escape -> ../outside                (a link to a directory outside)
 *   shared/leak -> ../outside/secret.txt       (a link to a file outside)
 *   shared/dangling -> ../outside/planted.txt  (a link to a file outside that does not exist yet)
 *   outside/secret.txt
 */
describe('examples/filesystem', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcpkit-fs-')));
  const shared = join(dir, 'shared');
  const outside = join(dir, 'outside');
  let roots: Root[] = [{ uri: pathToFileURL(shared).href, name: 'shared' }];
  let client: Client;

  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  const text = (result: Awaited<ReturnType<typeof call>>) => (result.content as { text: string }[])[0].text;

  beforeAll(async () => {
    mkdirSync(join(shared, 'sub'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(shared, 'notes.txt'), 'inside');
    writeFileSync(join(shared, 'sub', 'deep.txt'), 'deep inside');
    writeFileSync(join(outside, 'secret.txt'), 'classified');
    symlinkSync('sub/deep.txt', join(shared, 'alias'));
    symlinkSync('../outside', join(shared, 'escape'));
    symlinkSync('../outside/secret.txt', join(shared, 'leak'));
    symlinkSync('../outside/planted.txt', join(shared, 'dangling'));
    ({ client } = await connectExampleOverStdio(example('filesystem'), {
      capabilities: { roots: { listChanged: true } },
      setup: (c) => c.setRequestHandler(ListRootsRequestSchema, () => ({ roots })),
    }));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the roots the client declared, and a directory inside them', async () => {
    expect((await call('listRoots', {})).structuredContent).toEqual({ roots: [{ path: shared, uri: pathToFileURL(shared).href }] });
    const listing = await call('listDirectory', { path: '.' });
    expect(listing.structuredContent).toEqual({
      path: shared,
      entries: [
        { name: 'alias', type: 'symlink' },
        { name: 'dangling', type: 'symlink' },
        { name: 'escape', type: 'symlink' },
        { name: 'leak', type: 'symlink' },
        { name: 'notes.txt', type: 'file', size: 6 },
        { name: 'sub', type: 'directory' },
      ],
    });
  });

  it('reads inside the roots, by relative or absolute path, and through a link that stays inside', async () => {
    expect(text(await call('readFile', { path: 'notes.txt' }))).toBe('inside');
    expect(text(await call('readFile', { path: join(shared, 'sub', 'deep.txt') }))).toBe('deep inside');
    expect(text(await call('readFile', { path: 'sub/../alias' }))).toBe('deep inside');
  });

  it.each([
    ['a .. path', '../outside/secret.txt'],
    ['an absolute path', join(outside, 'secret.txt')],
    ['a .. hidden in the middle', 'sub/../../outside/secret.txt'],
    ['a link to a file outside', 'leak'],
    ['a path through a link to a directory outside', 'escape/secret.txt'],
    ['the link to a directory outside itself', 'escape'],
  ])('refuses %s', async (_, path) => {
    for (const tool of ['readFile', 'listDirectory']) {
      const result = await call(tool, { path });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^Access denied: /);
      expect(text(result)).not.toContain('classified');
    }
  });

  it('writes inside the roots, and refuses writes that would land outside', async () => {
    expect(text(await call('writeFile', { path: 'sub/new/today.txt', content: 'written', createDirectories: true }))).toMatch(
      /^Wrote 7 bytes/,
    );
    expect(readFileSync(join(shared, 'sub', 'new', 'today.txt'), 'utf8')).toBe('written');

    for (const path of ['dangling', 'escape/planted.txt', '../outside/planted.txt']) {
      const result = await call('writeFile', { path, content: 'planted' });
      expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^Access denied: /) }] });
    }
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('classified');
  });

  it('asks for the roots on every call: a directory the client adds is open at once, one it removes is closed', async () => {
    roots = [...roots, { uri: pathToFileURL(outside).href, name: 'outside' }];
    await client.sendRootsListChanged();
    expect(text(await call('readFile', { path: join(outside, 'secret.txt') }))).toBe('classified');

    roots = [];
    await client.sendRootsListChanged();
    expect(await call('readFile', { path: join(shared, 'notes.txt') })).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('shares no directory') }],
    });
  });
});
