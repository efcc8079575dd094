import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/paths';

/*
 * Second copies of mcpkit's peers (src/kernel/peer-copies.ts), found in a real Node process: jest's own
 * require.cache is a copy per read, so the module cache a copy is found in can only be set up in a process
 * of its own (on the compiled dist/).
 */

const PEER_COPIES = join(ROOT, 'dist', 'src', 'kernel', 'peer-copies.js');
const PEERS = ['tsyringe', 'class-validator', 'class-transformer'];

let base: string;
beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'mcpkit-peer-copies-')));
  // Copies of the peers the working directory resolves to, which nothing has loaded: each peer, so that what
  // the working directory resolves does not depend on the folders above it (a machine may have /tmp/node_modules).
  for (const name of PEERS) {
    const pkg = join(base, 'node_modules', name);
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name, version: '0.0.0', main: 'index.js' }));
    writeFileSync(join(pkg, 'index.js'), 'module.exports = {};');
  }
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** The copies findPeerCopies(resolving) reports in a process started in `base`, after `loaded` joined its module cache. */
function copies(resolving: boolean, loaded: string[]): { name: string; ours: string; others: string[] }[] {
  // reflect-metadata by its path: `base` holds the other peers only, and the folders above it may hold anything.
  const script = `require(${JSON.stringify(join(ROOT, 'node_modules', 'reflect-metadata'))});
    for (const file of ${JSON.stringify(loaded)}) require.cache[file] = { id: file, filename: file, loaded: true, exports: {} };
    const { findPeerCopies } = require(${JSON.stringify(PEER_COPIES)});
    process.stdout.write(JSON.stringify(findPeerCopies(${resolving})));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: base, encoding: 'utf8' })) as ReturnType<typeof copies>;
}

const ours = (name: string) => realpathSync(join(ROOT, 'node_modules', name));

describe('second copies of the peers', () => {
  it('finds none in a process that loaded one copy of each', () => {
    expect(copies(false, [])).toEqual([]);
  });

  it('finds loaded copies, one of them nested in another copy after a file of it', () => {
    const other = '/elsewhere/node_modules/tsyringe';
    const nested = `${other}/node_modules/class-transformer`;
    const found = copies(false, [`${other}/dist/cjs/index.js`, `${other}/dist/cjs/container.js`, `${nested}/cjs/index.js`]);
    expect(found).toEqual([
      { name: 'tsyringe', ours: ours('tsyringe'), others: [other] },
      { name: 'class-transformer', ours: ours('class-transformer'), others: [nested] },
    ]);
  });

  it('resolves the peers from the working directory only when asked (to explain a failed injection), not at every start', () => {
    expect(copies(true, [])).toEqual(PEERS.map((name) => ({ name, ours: ours(name), others: [join(base, 'node_modules', name)] })));
    expect(copies(false, [])).toEqual([]);
  });
});
