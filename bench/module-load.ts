import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const LIB_BUNDLE = join(ROOT, 'lib', 'mcpkit.js');
const PEERS = ['reflect-metadata', 'class-validator', 'class-transformer', 'tsyringe'];

/**
 * The published build, lib/ (bundled by scripts/bundle-lib.js), rebuilt with `npm run build:lib` when
 * missing or older than a file of src/ or of the build scripts: the cold-start rows measure what users
 * install, which `npm run bench`'s own build (tsc into dist/) does not make.
 */
export function ensureLib(): void {
  const built = existsSync(LIB_BUNDLE) ? statSync(LIB_BUNDLE).mtimeMs : 0;
  const inputs = [...walk(join(ROOT, 'src')), join(ROOT, 'scripts', 'bundle-lib.js'), join(ROOT, 'tsconfig.build.json')];
  if (inputs.every((file) => statSync(file).mtimeMs < built)) return;
  console.log('\nbuilding lib/ (npm run build:lib): the cold-start rows run the published bundle');
  execSync('npm run -s build:lib', { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

export interface ModuleLoadRow {
  build: string;
  /** Median CPU milliseconds of `require(entry)` in a fresh process that already loaded the peers. */
  cpu: number;
  wall: number;
  /** mcpkit's files that require read: what Node resolved, read and compiled one by one. */
  files: number;
}

/**
 * The module load of a stdio server over its peers (issue 22's row): a fresh Node loads
 * reflect-metadata, class-validator, class-transformer and tsyringe, then requires mcpkit's entry point;
 * the CPU time of that require alone. The published bundle (lib/index.js) and tsc's output
 * (dist/src/index.js) alternate `runs` times; medians.
 */
export function moduleLoad(runs: number): ModuleLoadRow[] {
  const lib = join(ROOT, 'lib');
  // 'lib (bundle)' with the V8 code cache its entry point saves (src/code-cache.ts), as at every start of a
  // server after its first; 'lib, no code cache' compiles the bundle, as the first start does.
  const builds: Record<string, { dir: string; env?: NodeJS.ProcessEnv }> = {
    'lib (bundle)': { dir: lib },
    'lib, no cache': { dir: lib, env: { MCPKIT_CODE_CACHE: '0' } },
    'tsc output': { dir: join(ROOT, 'dist', 'src') },
  };
  const samples: Record<string, { cpu: number; wall: number; files: number }[]> = Object.fromEntries(
    Object.keys(builds).map((build) => [build, []]),
  );
  const script = (dir: string, linger = false) => `${PEERS.map((p) => `require(${JSON.stringify(require.resolve(p))});`).join(' ')}
    const cpu = process.cpuUsage(); const wall = process.hrtime.bigint();
    require(${JSON.stringify(join(dir, 'index.js'))});
    const used = process.cpuUsage(cpu);
    const files = Object.keys(require.cache).filter((f) => f.startsWith(${JSON.stringify(dir)})).length;
    console.log(JSON.stringify({ cpu: (used.user + used.system) / 1000, wall: Number(process.hrtime.bigint() - wall) / 1e6, files }));
    ${linger ? 'setTimeout(() => {}, 1500);' : ''}`;
  // Run from a file, as a server's main file is: `node -e` loads node:crypto (and the streams) before the script.
  const scripts = mkdtempSync(join(tmpdir(), 'mcpkit-module-load-'));
  const once = ({ dir, env }: { dir: string; env?: NodeJS.ProcessEnv }, linger = false) => {
    const file = join(scripts, 'load.js');
    writeFileSync(file, script(dir, linger));
    return JSON.parse(
      execFileSync(process.execPath, [file], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } }),
    ) as ModuleLoadRow;
  };
  // Warms the file cache; the first load of lib/ lives on past the save of its code cache (1 s after the load).
  for (const build of Object.values(builds)) once(build, build.dir === lib && !build.env);
  for (let i = 0; i < runs; i++) for (const [name, build] of Object.entries(builds)) samples[name].push(once(build));
  rmSync(scripts, { recursive: true, force: true });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return Object.entries(samples).map(([build, s]) => ({
    build,
    cpu: median(s.map((x) => x.cpu)),
    wall: median(s.map((x) => x.wall)),
    files: s[0].files,
  }));
}
