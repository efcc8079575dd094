// Turns tsc's CommonJS output in lib/ into one bundle, lib/mcpkit.js, that every entry point shares.
// Loading ~130 small files costs Node a resolve, stat, realpath, read and wrap each: about half of
// mcpkit's module load (issue 22). esbuild bundles tsc's JavaScript, not the sources, so the decorator
// metadata tsc emits (`__metadata("design:paramtypes", ...)`) is kept; tsc's .d.ts files stay as they are.
//
// One bundle for all entry points (package.json "exports" and the bin): a class, a tsyringe token or a
// registry exists once whichever entry a user imports. The bundle's own entry is an object of lazy
// getters, one per entry point, so requiring `mcpkit` runs none of the client, CLI or auth code; each
// module inside stays a lazy CommonJS wrapper run on its first require(), so code mcpkit loads on first
// use (Koa, Ajv, the HTTP transport...) still loads on first use. Packages stay external (--packages=external):
// dependencies, peers and the optional ioredis and @opentelemetry/api are required from node_modules.
// Each entry file then becomes one line that re-exports its part of the bundle, and tsc's other .js files go.
'use strict';
const { readdirSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, sep } = require('node:path');
const esbuild = require('esbuild');

const root = join(__dirname, '..');
const lib = join(root, 'lib');
const BUNDLE = 'mcpkit.js';
const pkg = require('../package.json');

/** lib-relative names without .js: 'index', 'auth/index', 'console-to-stderr', 'cli/main'. */
const entries = [
  ...Object.values(pkg.exports)
    .filter((target) => typeof target === 'object')
    .map((target) => target.require.default),
  ...Object.values(pkg.bin),
].map((file) => file.replace(/^(\.\/)?lib\//, '').replace(/\.js$/, ''));

const getters = entries.map((entry) => `  get ${JSON.stringify(entry)}() {\n    return require('./${entry}.js');\n  },`);
const result = esbuild.buildSync({
  stdin: { contents: `module.exports = {\n${getters.join('\n')}\n};\n`, resolveDir: lib, sourcefile: 'mcpkit-entries.js' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  packages: 'external',
  outfile: join(lib, BUNDLE),
  // A class that refers to itself becomes `var McpError = class _McpError` in a bundle: keepNames gives
  // classes and functions back their own names (error names, messages, stack traces, tsyringe's errors).
  keepNames: true,
  // Every file tsc wrote is strict mode; the banner keeps the whole bundle so.
  banner: { js: "'use strict';" },
  absWorkingDir: root,
  metafile: true,
  logLevel: 'warning',
});

// tsc's .js files are in the bundle now: each goes, except the entry points, rewritten below. A .js
// outside the bundle is one no entry point reaches (a types-only module, an unused barrel): "exports"
// lets no one require it by path, so it goes too.
const bundled = new Set(Object.keys(result.metafile.inputs).map((input) => join(root, input)));
const unreached = [];
for (const file of walk(lib)) {
  if (!file.endsWith('.js') || file === join(lib, BUNDLE)) continue;
  if (!bundled.has(file)) unreached.push(relative(lib, file));
  rmSync(file);
}
for (const entry of entries) {
  const file = join(lib, `${entry}.js`);
  const bundle = relative(dirname(file), join(lib, BUNDLE)).split(sep).join('/');
  const from = `require('${bundle.startsWith('.') ? bundle : `./${bundle}`}')[${JSON.stringify(entry)}]`;
  writeFileSync(
    file,
    pkg.bin && Object.values(pkg.bin).some((bin) => bin.replace(/^(\.\/)?lib\//, '') === `${entry}.js`)
      ? `#!/usr/bin/env node\n'use strict';\n${from}.main();\n`
      : `'use strict';\nmodule.exports = ${from};\n`,
  );
}
const size = result.metafile.outputs[relative(root, join(lib, BUNDLE)).split(sep).join('/')]?.bytes;
console.log(`lib/${BUNDLE}: ${bundled.size} files of tsc's output, ${Math.round((size ?? 0) / 1024)} KB; ${entries.length} entry points`);
if (process.env.MCPKIT_BUNDLE_VERBOSE) console.log(`not reached from an entry point: ${unreached.join(', ')}`);

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}
