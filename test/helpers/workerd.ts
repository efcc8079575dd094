import { spawn } from 'node:child_process';
import { builtinModules } from 'node:module';
import { writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Plugin } from 'esbuild';
import { ROOT } from './paths';
import { waitFor } from './wait-for';
import { freePort } from './free-port';

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/**
 * A CommonJS `require('node:x')` inside the bundle becomes an ESM import of `node:x`, which the
 * Workers runtime provides with the nodejs_compat flag (esbuild would otherwise emit a dynamic
 * require, which an ES module worker has no way to run).
 */
const nodeBuiltins: Plugin = {
  name: 'node-builtins',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (!BUILTINS.has(args.path)) return undefined;
      const name = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
      if (args.kind === 'require-call') return { path: name, namespace: 'node-builtin' };
      return { path: name, external: true };
    });
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      contents: `import * as m from ${JSON.stringify(args.path)}; module.exports = m.default ?? m;`,
      loader: 'js',
    }));
  },
};

/** Bundles a Worker module (`export default { fetch }`) with esbuild into one ES module; resolves with its path. */
export async function bundleWorker(entry: string, outDir: string): Promise<{ path: string; bytes: number; inputs: string[] }> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a devDependency, loaded by the tests that bundle
  const esbuild = require('esbuild') as typeof import('esbuild');
  const outfile = join(outDir, 'worker.js');
  // tsc's CommonJS output keeps `export default` as `exports.default`: an ES module entry re-exports it.
  const commonJs = entry.endsWith('.js');
  const result = await esbuild.build({
    ...(commonJs
      ? { stdin: { contents: `export { default } from ${JSON.stringify(entry)};`, resolveDir: ROOT, loader: 'js' as const } }
      : { entryPoints: [entry] }),
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'import', 'require', 'default'],
    tsconfig: join(ROOT, 'tsconfig.json'),
    plugins: [nodeBuiltins],
    logLevel: 'silent',
    metafile: true,
  });
  const output = Object.values(result.metafile.outputs)[0];
  return { path: outfile, bytes: output.bytes, inputs: Object.keys(result.metafile.inputs) };
}

/**
 * Runs a bundled Worker in workerd (the npm package's binary, or `options.workerd`) on 127.0.0.1, with
 * nodejs_compat and a compatibility date (default 2026-11-01). Resolves once it answers HTTP.
 */
export async function startWorkerd(
  bundle: string,
  options: { workerd?: string; compatibilityDate?: string } = {},
): Promise<{ url: string; port: number; output: () => string; stop: () => Promise<void> }> {
  // workerd embeds the module from a path relative to its config.
  const dir = dirname(bundle);
  const port = await freePort();
  const config = join(dir, 'config.capnp');
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .mainWorker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const mainWorker :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed ${JSON.stringify(basename(bundle))})],
  compatibilityDate = "${options.compatibilityDate ?? '2026-11-01'}",
  compatibilityFlags = ["nodejs_compat"],
);
`,
  );
  const child = spawn(options.workerd ?? join(ROOT, 'node_modules', '.bin', 'workerd'), ['serve', config, '--verbose'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${port}/mcp`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  const exited = new Promise<never>((_, reject) => child.once('exit', () => reject(new Error(`workerd exited: ${output}`))));
  try {
    await Promise.race([
      exited,
      waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined)) !== undefined, {
        timeoutMs: 30_000,
        intervalMs: 100,
        what: 'workerd to answer HTTP',
      }),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, output: () => output, stop };
}
