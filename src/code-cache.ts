/* eslint-disable @typescript-eslint/no-require-imports -- Node's modules are required once the cache applies:
   the entry point also runs where they do not exist (a Worker bundle: workerd has no node:vm) */
import type * as Fs from 'node:fs';
import type * as Path from 'node:path';
import type * as Vm from 'node:vm';

/*
 * The V8 code cache of the published bundle (issue 22). Most of a stdio server's start that is mcpkit's own
 * is V8 compiling lib/mcpkit.js (346 KB): its top level when it loads, then each function the first time it
 * runs. Node 20 has no compile cache of its own (22 has NODE_COMPILE_CACHE), so the package's entry point
 * loads the bundle through `loadCached`: compiled with the bytecode an earlier run of the same build on the
 * same Node saved, then run as Node would run it. scripts/bundle-lib.js copies this file's output into
 * lib/index.js (the entry still `require`s the bundle, which bundlers follow: when the file is not on disk,
 * as in a user's own bundle, or the cache is off, the bundle is required as usual).
 *
 * What is saved is bytecode that V8 runs without checking it: it is kept beside the code it was made
 * from (lib/.cache/), where whoever can change it can change the code too; MCPKIT_CODE_CACHE names
 * another directory, or turns it off (0).
 */

/** How long after the bundle loaded its bytecode is saved: late enough to hold the functions a first request runs. */
export const SAVE_AFTER_MS = 1000;

/** Set on the bundle's module: whether its bytecode came from the cache ('accepted'), or why not. */
export const CODE_CACHE_STATE = Symbol.for('mcpkit.codeCache');
export type CodeCacheState = 'accepted' | 'missing' | 'damaged' | 'rejected';

/** The parts of Node's CommonJS loader a module loaded by hand needs. */
interface LoaderModule {
  exports: unknown;
  filename: string;
  paths: string[];
  loaded: boolean;
}
interface Loader {
  new (id: string, parent?: unknown): LoaderModule;
  _cache: Record<string, LoaderModule | undefined>;
  _nodeModulePaths(dir: string): string[];
  wrap(source: string): string;
  createRequire(filename: string): NodeJS.Require;
  getCompileCacheDir?(): string | undefined;
}

/**
 * The exports of the CommonJS file `file` in `dir` (undefined: an ES module bundle has no __dirname),
 * compiled with the code cache of `build` (the bundle's content hash, written in by the build) when there
 * is one; `required()` (a plain `require` of the same file) wherever the cache does not apply.
 */
export function loadCached(dir: string | undefined, file: string, build: string, parent: unknown, required: () => unknown): unknown {
  let found: Found | undefined;
  try {
    found = dir === undefined ? undefined : find(dir, file, build, parent);
  } catch {
    found = undefined; // not Node's loader or file system (a Worker bundle)
  }
  if (!found) return required();
  const { Module, path, filename, cache, stem, source } = found;
  const key = `${stem}-${process.version}-${process.arch}.v8`;
  const saved = readCache(path.join(cache, key));
  const cachedData = typeof saved === 'string' ? undefined : saved;
  const { Script } = require('node:vm') as typeof Vm;
  const script = new Script(Module.wrap(source), { filename, cachedData });
  const module = new Module(filename, parent);
  module.filename = filename;
  module.paths = Module._nodeModulePaths(path.dirname(filename));
  Module._cache[filename] = module;
  try {
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(module.exports, module.exports, Module.createRequire(filename), module, filename, path.dirname(filename));
  } catch (error) {
    delete Module._cache[filename];
    throw error;
  }
  module.loaded = true;
  const state: CodeCacheState =
    saved === undefined ? 'missing' : !cachedData ? 'damaged' : script.cachedDataRejected ? 'rejected' : 'accepted';
  Object.defineProperty(module, CODE_CACHE_STATE, { value: state });
  if (state !== 'accepted') setTimeout(() => save(script, cache, file, stem, key), SAVE_AFTER_MS).unref();
  return module.exports;
}

interface Found {
  Module: Loader;
  path: typeof Path;
  filename: string;
  /** Where the cache is kept. */
  cache: string;
  /** What names this content: `<file>-<build>-<size>-<mtime>`; the cache file adds the Node version and arch. */
  stem: string;
  source: string;
}

/** The bundle's source and where its cache is; undefined where the cache does not apply (see loadCached). */
function find(dir: string, file: string, build: string, parent: unknown): Found | undefined {
  if (typeof process === 'undefined' || process.versions?.bun || process.versions?.deno || !process.versions?.node) return undefined;
  // Loaded by Node's own CommonJS loader, in its main realm: another loader (jest's module registry, which runs
  // each test file in a realm of its own) gets the bundle from its own require, in its own realm. The loader is
  // the parent's class (what `node:module` exports), taken from there: on Node 20 requiring `node:module` also
  // loads the ES module loader and source maps, which a CommonJS server never uses.
  const Module = loaderOf(parent);
  if (!Module) return undefined;
  const path = require('node:path') as typeof Path;
  const { closeSync, fstatSync, openSync, readFileSync } = require('node:fs') as typeof Fs;
  const filename = path.join(dir, file);
  const cache = cacheDirectory(Module, filename);
  if (cache === undefined || Module._cache[filename]) return undefined;
  const fd = openSync(filename, 'r'); // throws where the file is not on disk: bundled into the user's own file
  try {
    const { size, mtimeMs } = fstatSync(fd);
    const source = readFileSync(fd, 'utf8');
    if (!source.startsWith(`// mcpkit build ${build}\n`)) return undefined;
    // V8 checks the source's length, its own version and flags, not the source's text: the stem holds the
    // build, the file's size and time, so a file edited in place (a patch) never runs an older file's bytecode.
    return { Module, path, filename, cache, stem: `${file}-${build}-${size}-${Math.floor(mtimeMs)}`, source };
  } finally {
    closeSync(fd);
  }
}

/** Node's CommonJS loader, when `parent` is one of its modules in this realm. */
function loaderOf(parent: unknown): Loader | undefined {
  const Module = (parent as { constructor?: Partial<Loader> } | null)?.constructor;
  return Module &&
    parent instanceof (Module as unknown as new () => unknown) &&
    typeof Module.wrap === 'function' &&
    typeof Module._nodeModulePaths === 'function' &&
    typeof Module.createRequire === 'function' &&
    typeof Module._cache === 'object' &&
    Module._cache !== null
    ? (Module as Loader)
    : undefined;
}

/**
 * The bytecode saved under `file`, when it is whole. V8 does not check the bytes it deserializes (a damaged
 * file crashes the process, measured on Node 20), so each file holds its bytecode twice and the two copies
 * must be equal: a torn, truncated or partly overwritten file differs from itself, and the comparison is
 * native (about 20 µs), where a hash needs node:crypto, which with the streams it loads was 5 ms of
 * the load (measured: 13.1 against 7.8 ms, best of 14). A file of zeros passes, and V8 refuses it by its
 * header. Against damage, not design: whoever can write the file can write the code beside it.
 */
function readCache(file: string): Buffer | 'damaged' | undefined {
  let saved: Buffer;
  try {
    saved = (require('node:fs') as typeof Fs).readFileSync(file);
  } catch {
    return undefined;
  }
  const half = saved.length / 2;
  if (half === 0 || !Number.isInteger(half)) return 'damaged';
  const data = saved.subarray(0, half);
  return data.equals(saved.subarray(half)) ? data : 'damaged';
}

/** Where the cache is kept; undefined where it does not apply (another runtime, Node's own cache on, turned off). */
function cacheDirectory(Module: Loader, filename: string): string | undefined {
  const path = require('node:path') as typeof Path;
  if (process.env.NODE_COMPILE_CACHE || Module.getCompileCacheDir?.()) return undefined;
  const setting = process.env.MCPKIT_CODE_CACHE;
  if (setting === undefined || setting === '') return path.join(path.dirname(filename), '.cache');
  if (['0', 'off', 'false'].includes(setting.toLowerCase())) return undefined;
  return path.resolve(setting);
}

/**
 * Saves the bytecode compiled so far (the top level and the functions that have run), replacing the
 * cache of an older build of the same file. Written to a temporary file and renamed, so a process never
 * reads half a file; a directory that cannot be written (a read-only install) is left as it is.
 */
function save(script: Vm.Script, dir: string, file: string, stem: string, key: string): void {
  const { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } = require('node:fs') as typeof Fs;
  const path = require('node:path') as typeof Path;
  const temporary = path.join(dir, `${key}.${process.pid}.tmp`);
  try {
    mkdirSync(dir, { recursive: true });
    const data = script.createCachedData();
    writeFileSync(temporary, Buffer.concat([data, data]));
    renameSync(temporary, path.join(dir, key));
    for (const name of readdirSync(dir))
      if (name.startsWith(`${file}-`) && name.endsWith('.v8') && !name.startsWith(`${stem}-`))
        rmSync(path.join(dir, name), { force: true });
  } catch {
    // A cache is an optimization: without it, the bundle compiles as before.
    try {
      rmSync(temporary, { force: true });
    } catch {
      // nothing was written
    }
  }
}
