// Writes the ESM entry points of the package next to the CommonJS build in lib/: each `.mjs`
// re-exports the names of its CommonJS module (one copy of every class and registry, whichever
// way the user imports), and each `.d.mts` gives TypeScript's NodeNext resolution the same names.
'use strict';
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const lib = join(__dirname, '..', 'lib');
// Every entry point package.json exports: a new subpath needs no change here.
const { exports: entryPoints } = require('../package.json');
const entries = Object.values(entryPoints)
  .filter((target) => typeof target === 'object')
  .map((target) => target.require.default.replace(/^\.\/lib\//, '').replace(/\.js$/, ''));

for (const entry of entries) {
  const names = Object.keys(require(join(lib, `${entry}.js`))).filter((name) => name !== '__esModule' && name !== 'default');
  const base = `./${entry.split('/').pop()}.js`;
  const js = names.length
    ? `import cjs from '${base}';\n\nexport const {\n${names.map((n) => `  ${n},`).join('\n')}\n} = cjs;\n`
    : `import '${base}';\n`;
  writeFileSync(join(lib, `${entry}.mjs`), js);
  writeFileSync(join(lib, `${entry}.d.mts`), names.length ? `export * from '${base}';\n` : `import '${base}';\nexport {};\n`);
}
