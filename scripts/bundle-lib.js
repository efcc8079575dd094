// Turns tsc's CommonJS output in lib/ into a bundle, lib/mcpkit.js, that every entry point shares.
// Loading ~130 small files costs Node a resolve, stat, realpath, read and wrap each: about half of
// mcpkit's module load (issue 22). esbuild bundles tsc's JavaScript, not the sources, so the decorator
// metadata tsc emits (`__metadata("design:paramtypes", ...)`) is kept; tsc's .d.ts files stay as they are.
//
// What `require('mcpkit')` loads at once (the modules its entry requires at their top level, found in
// tsc's output) is lib/mcpkit.js. Code loaded on first use (a `require()` inside a function: Koa's HTTP
// transport, the task machinery, the OAuth proxy...) and the other entry points (mcpkit/auth, the CLI...)
// go to chunk files, lib/mcpkit.<name>.js, read only when first required: V8 parses every function of a
// file it loads, so putting them in lib/mcpkit.js too made a stdio server's module load ~60% slower
// (2-core VM: 31.6 against 19.2 ms of CPU for require('mcpkit') after the peers).
// Each module is in exactly one file, which holds it as a lazy CommonJS wrapper; another file reaches it
// through the getter its file exports for it. So a class, a tsyringe token or a registry exists once,
// whichever entry point a user imports. Packages stay external: dependencies, peers and the optional
// ioredis and @opentelemetry/api are required from node_modules as before. Each entry file becomes one
// line that re-exports its part of a bundle file, and tsc's other .js files go.
// MCPKIT_BUNDLE_VERBOSE=1 lists the bundle files with their module counts and sizes.
'use strict';
const { createHash } = require('node:crypto');
const { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, resolve, sep } = require('node:path');
const { Script } = require('node:vm');
const esbuild = require('esbuild');

const root = join(__dirname, '..');
const lib = join(root, 'lib');
const pkg = require('../package.json');

/** 'auth/index' for lib/auth/index.js. */
const keyOf = (file) => relative(lib, file).split(sep).join('/').replace(/\.js$/, '');
const fileOf = (key) => join(lib, `${key}.js`);
const fromLib = (file) => file.replace(/^(\.\/)?lib\//, '').replace(/\.js$/, '');

const bins = Object.values(pkg.bin).map(fromLib);
const entries = [
  ...Object.values(pkg.exports)
    .filter((target) => typeof target === 'object')
    .map((target) => fromLib(target.require.default)),
  ...bins,
];

/**
 * The relative requires of a tsc-compiled module: eager ones (at the top level, where tsc puts an
 * import: no indentation) and lazy ones (inside a function: indented).
 */
const requires = new Map();
function requiresOf(key) {
  if (!requires.has(key)) requires.set(key, scanRequires(key));
  return requires.get(key);
}

function scanRequires(key) {
  const file = fileOf(key);
  const eager = [];
  const lazy = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    for (const [, spec] of line.matchAll(/\brequire\(["'](\.\.?\/[^"']*)["']\)/g)) {
      const found = moduleFile(resolve(dirname(file), spec));
      if (!found) throw new Error(`${key}.js requires ${spec}, which tsc did not write`);
      (/^\s/.test(line) ? lazy : eager).push(keyOf(found));
    }
  }
  return { eager, lazy };
}

/** The .js file a relative require names, resolved as Node would: as a file, then as a folder's index.js. */
function moduleFile(target) {
  return [target, `${target}.js`, join(target, 'index.js')].find((f) => f.endsWith('.js') && existsSync(f));
}

/** Every module a root loads at once. */
function closure(rootKey) {
  const seen = new Set();
  const stack = [rootKey];
  while (stack.length) {
    const key = stack.pop();
    if (seen.has(key)) continue;
    seen.add(key);
    stack.push(...requiresOf(key).eager);
  }
  return seen;
}

// Roots: the entry points, then every module required lazily (found in what the roots load).
const roots = [...entries];
const closures = new Map();
for (let i = 0; i < roots.length; i++) {
  const modules = closure(roots[i]);
  closures.set(roots[i], modules);
  for (const key of modules) for (const lazy of requiresOf(key).lazy) if (!roots.includes(lazy)) roots.push(lazy);
}

// The main file holds what `require('mcpkit')` loads; every other module goes with the modules that the
// same roots load, so that loading a root reads no module it does not load.
const eager = closures.get('index');
const groups = new Map();
for (const key of new Set([...closures.values()].flatMap((modules) => [...modules]))) {
  if (eager.has(key)) continue;
  const reachedBy = roots.filter((r) => closures.get(r).has(key)).join(' ');
  if (!groups.has(reachedBy)) groups.set(reachedBy, new Set());
  groups.get(reachedBy).add(key);
}
/** Bundle file name (in lib/) of each module. */
const chunkOf = new Map([...eager].map((key) => [key, 'mcpkit.js']));
for (const [reachedBy, modules] of groups) {
  const only = reachedBy.split(' ');
  const name =
    only.length === 1
      ? only[0].replace(/\/index$/, '').replace(/[/]/g, '-')
      : `shared-${createHash('sha256').update(reachedBy).digest('hex').slice(0, 8)}`;
  for (const key of modules) chunkOf.set(key, `mcpkit.${name}.js`);
}
const chunks = [...new Set(chunkOf.values())];

/** Requires of modules that live in another bundle file become that file's getter. */
const crossChunk = (chunk) => ({
  name: 'mcpkit-chunks',
  setup(build) {
    build.onResolve({ filter: /^\.\/mcpkit(\.[^/]+)?\.js$/ }, (args) =>
      args.namespace === 'mcpkit-module' ? { path: args.path, external: true } : undefined,
    );
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const file = moduleFile(resolve(args.resolveDir, args.path));
      const key = file && keyOf(file);
      if (!key || !chunkOf.has(key) || chunkOf.get(key) === chunk) return undefined;
      return { path: key, namespace: 'mcpkit-module' };
    });
    build.onLoad({ filter: /.*/, namespace: 'mcpkit-module' }, (args) => ({
      contents: `module.exports = require('./${chunkOf.get(args.path)}')[${JSON.stringify(args.path)}];\n`,
      loader: 'js',
    }));
  },
});

async function build() {
  const sizes = [];
  for (const chunk of chunks) {
    const modules = [...chunkOf].filter(([, c]) => c === chunk).map(([key]) => key);
    const getters = modules.map((key) => `  get ${JSON.stringify(key)}() {\n    return require('./${key}.js');\n  },`);
    const result = await esbuild.build({
      stdin: { contents: `module.exports = {\n${getters.join('\n')}\n};\n`, resolveDir: lib, sourcefile: `<${chunk} entry>` },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      packages: 'external',
      outfile: join(lib, chunk),
      absWorkingDir: root,
      // A class that refers to itself becomes `var McpError = class _McpError` in a bundle: keepNames gives
      // classes and functions back their own names (error names, messages, stack traces, tsyringe's errors).
      keepNames: true,
      // Every file tsc wrote is strict mode; the banner keeps each bundle file so.
      banner: { js: "'use strict';" },
      metafile: true,
      logLevel: 'warning',
      plugins: [crossChunk(chunk)],
    });
    const bundled = Object.keys(result.metafile.inputs).filter((input) => input.startsWith('lib/') && input.endsWith('.js'));
    const stray = bundled.filter((input) => chunkOf.get(input.slice(4).replace(/\.js$/, '')) !== chunk);
    if (stray.length || bundled.length !== modules.length)
      throw new Error(`${chunk}: ${bundled.length} modules bundled, ${modules.length} assigned; not its own: ${stray.join(', ')}`);
    dropRedundantNames(join(lib, chunk));
    compileEagerly(join(lib, chunk), modules.length);
    sizes.push({ chunk, modules: modules.length, bytes: statSync(join(lib, chunk)).size });
  }

  // tsc's .js files are in the bundle files now: each goes, except the entry points, rewritten below. A .js
  // in none of them is one no entry point reaches (a types-only module, an unused barrel): "exports" lets
  // no one require it by path, so it goes too.
  const codeCache = readFileSync(fileOf('code-cache'), 'utf8');
  rmSync(join(lib, 'code-cache.d.ts'));
  for (const file of walk(lib)) if (file.endsWith('.js') && !chunks.includes(relative(lib, file))) rmSync(file);
  for (const entry of entries) {
    const file = fileOf(entry);
    const chunk = relative(dirname(file), join(lib, chunkOf.get(entry)))
      .split(sep)
      .join('/')
      .replace(/^(?!\.)/, './');
    const from = `require('${chunk}')[${JSON.stringify(entry)}]`;
    writeFileSync(
      file,
      bins.includes(entry)
        ? `#!/usr/bin/env node\n'use strict';\n${from}.main();\n`
        : entry === 'index'
          ? cachedEntry(chunk, entry, codeCache)
          : `'use strict';\nmodule.exports = ${from};\n`,
    );
  }
  sizes.sort((a, b) => b.bytes - a.bytes);
  const total = sizes.reduce((sum, s) => sum + s.modules, 0);
  console.log(
    `lib/: ${total} modules of tsc's output in ${chunks.length} bundle files, ${entries.length} entry points; ` +
      `mcpkit.js (what require('mcpkit') loads): ${eager.size} modules, ${Math.round(statSync(join(lib, 'mcpkit.js')).size / 1024)} KB`,
  );
  if (process.env.MCPKIT_BUNDLE_VERBOSE)
    for (const s of sizes) console.log(`  ${s.chunk}: ${s.modules} modules, ${Math.round(s.bytes / 1024)} KB`);
}

/**
 * lib/index.js, what `require('mcpkit')` loads: the bundle through src/code-cache.ts's loader (its tsc
 * output, inlined: the entry stays one file), with the bundle's content hash, so that its V8 code cache is
 * reused by later runs of the same build. The plain `require` of the bundle stays in the file: it is what a
 * user's bundler follows, and what runs wherever the cache does not apply.
 */
function cachedEntry(chunk, entry, codeCache) {
  const bundle = join(lib, chunk);
  const code = readFileSync(bundle, 'utf8');
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  // Its first line names the build: the loader runs no other file found at that path (a user's own bundle).
  writeFileSync(bundle, `// mcpkit build ${hash}\n${code}`);
  const loader = codeCache.replace(/^\/\/# sourceMappingURL=.*$/m, '');
  return `'use strict';
const { loadCached } = (function (exports) {
${loader.trim()}
return exports;
})({});
// In a user's ES module bundle there is no __dirname: the bundle is required as usual.
const dir = typeof __dirname === 'string' ? __dirname : undefined;
module.exports = loadCached(dir, ${JSON.stringify(chunk.slice(2))}, ${JSON.stringify(hash)}, module, () => require(${JSON.stringify(chunk)}))[
  ${JSON.stringify(entry)}
];
`;
}

/**
 * keepNames makes esbuild name every function and class by a call, `__name(fn, "fn")`, in case bundling
 * renamed it; most of them give a name the language gives anyway, and each is a defineProperty when the
 * module loads (lib/mcpkit.js: 534 calls, ~130 KB of a stdio server's allocation before its first
 * answer, which brings V8's young-generation collection forward into start-up). Three forms are dropped,
 * each only where the name given is the one the function or class already has:
 *  - `__name(f, "f");` where the file declares `function f(`: a function declaration is named by its name;
 *  - `static { __name(this, "C"); }` opening `var C = class {` or `var C = class extends B {`: an
 *    anonymous class assigned to a variable takes its name, set before its static blocks and fields run;
 *  - tsc's re-export getter `get: __name(function() { return m.x; }, "get")` (or `m[k]`): an anonymous function as a
 *    property's value takes the property's name.
 *  - `k: __name(() => ..., "k")`, `const k = __name(...)`, `k = __name(...)` (a class field or an
 *    assignment): an anonymous function or arrow is named by the property, variable or field it is
 *    defined as (unwrapped by unwrapNamed; these closures are made at run time too, per request some).
 * A renamed function (`function f2(`, `__name(f2, "f")`) or a class named apart from its variable
 * (`var McpError = class _McpError`) keeps its call; bundle.spec checks the exported names.
 */
function dropRedundantNames(file) {
  const code = readFileSync(file, 'utf8');
  const declared = new Set([...code.matchAll(/^ *(?:async )?function\*? ?([\w$]+)\(/gm)].map((m) => m[1]));
  const result = code
    .replace(/^ *__name\(([\w$]+), "([\w$]+)"\);\n/gm, (call, fn, name) => (fn === name && declared.has(fn) ? '' : call))
    .replace(
      /^( *)var ([\w$]+) = class( extends [^\n{]+)? \{\n\1 {2}static \{\n\1 {4}__name\(this, "([\w$]+)"\);\n\1 {2}\}\n/gm,
      (block, indent, variable, heritage, name) => (variable === name ? `${indent}var ${variable} = class${heritage ?? ''} {\n` : block),
    )
    .replace(
      /get: \/\* @__PURE__ \*\/ __name\(function\(\) \{\n( +return [\w$.]+(?:\[[\w$]+\])?;\n +)\}, "get"\)/g,
      (_, body) => `get: function() {\n${body}}`,
    );
  writeFileSync(file, unwrapNamed(result));
}

const PURE_NAME = '/* @__PURE__ */ __name(';

/**
 * Unwraps `/* @__PURE__ *\/ __name(fn, "k")` where `fn` is an anonymous function or arrow defined as
 * property `k` (after `{`, `,`, `(` or at a line's start), variable `k` or field `k`: the language gives
 * it that name. esbuild prints the call on one line, or opens it on one line (ending in `{`) and closes it
 * with `}, "k")` on the first later line of the same indentation. A line with two such calls is left as is.
 */
function unwrapNamed(code) {
  const lines = code.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const at = line.indexOf(PURE_NAME);
    if (at < 0 || line.indexOf('__name(', at + PURE_NAME.length) >= 0) continue;
    const before = line.slice(0, at);
    const key = /(?:^|[{,(]) *(?:([\w$]+)|"([^"\\]+)"): $/.exec(before) ?? /^ *(?:(?:const|let|var) )?([\w$]+) = $/.exec(before);
    const fn = line.slice(at + PURE_NAME.length);
    if (!key || !/^(?:async )?(?:\(|[\w$]+ =>|function\*? ?\()/.test(fn)) continue;
    const close = `, ${JSON.stringify(key[1] ?? key[2])})`;
    if (fn.indexOf(close) >= 0) {
      if (fn.indexOf(close) !== fn.lastIndexOf(close)) continue;
      lines[i] = before + fn.replace(close, '');
      continue;
    }
    if (!fn.endsWith('{')) continue;
    const indent = /^ */.exec(line)[0];
    // The first later line indented no deeper: the call's close, or (a line less indented) none found.
    let end = i + 1;
    while (end < lines.length && (lines[end] === '' || /^ */.exec(lines[end])[0].length > indent.length)) end++;
    if (end >= lines.length || !lines[end].startsWith(`${indent}}${close}`)) continue;
    lines[i] = before + fn;
    lines[end] = `${indent}}${lines[end].slice(indent.length + 1 + close.length)}`;
  }
  return lines.join('\n');
}

/**
 * Every module of a bundle file runs once the file is loaded (the file holds what one set of roots loads at
 * once), but esbuild writes each as a method, `"lib/x.js"(exports, module) { ... }`, which V8 pre-parses when
 * it compiles the file and parses again when it runs. As a parenthesized function, V8 compiles it at once:
 * ~3 ms less CPU for require('mcpkit') on a 2-core VM (15.1 against 18.4 ms, fastest of 41). Called as
 * before (`cb[name](exports, module)`, `this` undefined either way). A wrapper starts at a top-level
 * `var require_x = __commonJS({` line and ends at the last `  }` + `});` before the next one or the entry
 * code (template literals inside a module may hold such lines too: the last is the wrapper's); the result
 * must compile, and a count that differs from the modules bundled fails the build.
 */
function compileEagerly(file, modules) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const wrappers = lines.flatMap((line, i) => (/^var [\w$]+ = __commonJS\(\{$/.test(line) ? [i] : []));
  const entry = lines.findIndex((line) => /^\/\/ lib\/<.* entry>$/.test(line));
  let count = 0;
  wrappers.forEach((at, k) => {
    const method = /^ {2}("lib\/[^"]+\.js")\((.*)\) \{$/.exec(lines[at + 1]);
    if (!method) return; // a getter of a module in another file
    const end = k + 1 < wrappers.length ? wrappers[k + 1] : entry;
    let close = end - 1;
    while (close > at + 1 && !(lines[close] === '  }' && lines[close + 1] === '});')) close--;
    if (close <= at + 1) throw new Error(`${relative(root, file)}:${at + 1}: no end found for ${method[1]}`);
    lines[at + 1] = `  ${method[1]}: (function (${method[2]}) {`;
    lines[close] = '  })';
    count++;
  });
  if (entry < 0 || count !== modules) throw new Error(`${relative(root, file)}: ${count} module wrappers rewritten, ${modules} modules`);
  const code = lines.join('\n');
  new Script(code, { filename: file });
  writeFileSync(file, code);
}

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

build().catch((error) => {
  console.error(error);
  process.exit(1);
});
