import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { cleanEnv, run } from './cli';
import { ROOT } from './paths';
import { alive } from './processes';

export interface PackedTarball {
  tarball: string;
  /** The paths `npm pack --json` lists. */
  files: string[];
}

/**
 * `npm pack` of this tree (its `prepack` builds lib/), made once for a given content of the package's
 * sources and shared by every test process: two packs at once would both rebuild lib/. The first
 * process takes a lock directory; the others wait for its result.
 */
export async function packedTarball(): Promise<PackedTarball> {
  const dir = join(tmpdir(), `mcpkit-tarball-${contentHash()}`);
  const done = join(dir, 'packed.json');
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (existsSync(done)) return JSON.parse(readFileSync(done, 'utf8')) as PackedTarball;
    if (takeLock(lock)) break;
    if (Date.now() > deadline) throw new Error(`gave up waiting for another test process to pack mcpkit (lock ${lock})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  try {
    mkdirSync(dir, { recursive: true });
    const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, env: cleanEnv(), timeoutMs: 180_000 });
    if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
    const json = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    const result: PackedTarball = { tarball: join(dir, json[0].filename), files: json[0].files.map((f) => f.path) };
    writeFileSync(done, JSON.stringify(result));
    return result;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Takes the lock, or takes it over from a process that died holding it. */
function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(process.pid));
    return true;
  } catch {
    const pid = Number(readFileSafe(join(lock, 'pid')));
    if (pid && !alive(pid)) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** What the tarball is built from: sources, build configuration, package.json, README and LICENSE. */
function contentHash(): string {
  const hash = createHash('sha256');
  const files = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE', ...walk(join(ROOT, 'src'))];
  for (const file of files) hash.update(file).update(readFileSync(join(ROOT, file)));
  return hash.digest('hex').slice(0, 16);
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [relative(ROOT, path)];
    });
}
