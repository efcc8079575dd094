/**
 * Preloaded (`node -r .../use-lib.js server.js`) to run a bench server on the published build instead
 * of tsc's output: each require that resolves to an entry point of dist/src (src/index, src/auth/index,
 * ...) resolves to the same entry point of lib/, which re-exports its part of the bundle
 * (lib/mcpkit.js and its chunks, scripts/bundle-lib.js). Any other file of dist/src is refused, so a server that
 * reached past the entry points cannot silently mix the two builds.
 */
import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const DIST_SRC = join(ROOT, 'dist', 'src');
const LIB = join(ROOT, 'lib');

type Resolve = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;
// Node's CommonJS loader, from this module's class: importing node:module would load Node 20's ES module
// loader too, which the servers measured here never load themselves.
const loader = module.constructor as unknown as { _resolveFilename: Resolve };
const resolve = loader._resolveFilename;
loader._resolveFilename = function (request, parent, isMain, options) {
  const file = resolve.call(this, request, parent, isMain, options);
  if (!file.startsWith(DIST_SRC + sep)) return file;
  const published = join(LIB, relative(DIST_SRC, file));
  if (!existsSync(published)) throw new Error(`${relative(ROOT, file)} is not an entry point of the published lib/`);
  return published;
};
