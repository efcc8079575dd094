import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { CliError, firstLine } from './cli-error';
import { CLIENTS } from './install-clients';
import { shown } from './project';

/** A bundle's entries: by their path inside it ('/'-separated), the file on disk. */
export interface BundleFiles {
  readonly files: Map<string, string>;
  /** Some dependency is built for this platform (a `.node` addon, or `os`/`cpu` in its package.json). */
  readonly native: boolean;
  /** What npm ls found wrong with the installed tree (invalid, missing or extraneous packages). */
  readonly problems: readonly string[];
}

/** Every entry gets this time, so that the same files make the same bundle, byte for byte. */
const ENTRY_TIME = new Date(2000, 0, 1);

function npm(root: string, args: string[], okWithProblems = false): { stdout: string; stderr: string } {
  const run = spawnSync('npm', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, shell: process.platform === 'win32' });
  if (run.error) throw new CliError(`cannot run npm ${args[0]}: ${run.error.message}`);
  // npm ls exits 1 for a tree with problems, and still lists it.
  if (run.status === 0 || (okWithProblems && run.status === 1 && run.stdout.trim() !== '')) return run;
  throw new CliError(`npm ${args.join(' ')} failed in ${root}: ${firstLine(run.stderr.replace(/^npm (error|warn) /gm, '') || run.stdout)}`);
}

/**
 * What goes into the bundle: the files npm would publish (so `files` and .npmignore decide, as for npm)
 * and every production dependency as installed.
 */
export function bundleFiles(root: string): BundleFiles {
  const files = new Map<string, string>();
  const packed = npm(root, ['pack', '--dry-run', '--json', '--ignore-scripts']).stdout;
  const listed = JSON.parse(packed.slice(packed.indexOf('['))) as { files: { path: string }[] }[];
  // An earlier bundle in the folder stays out of the next, and so do the clients' configurations.
  const configs = clientConfigs(root);
  for (const { path } of listed[0].files) if (!path.endsWith('.mcpb') && !configs.has(path)) files.set(path, join(root, path));
  const ls = npm(root, ['ls', '--omit=dev', '--all', '--parseable'], true);
  const [npmRoot, ...dirs] = ls.stdout.split('\n').map((line) => line.trim());
  const project = realpathSync(root);
  let native = false;
  const placed = dirs
    .filter((dir) => dir !== '' && realpathSync(dir) !== project)
    .map((dir) => ({ dir, at: bundlePath(root, npmRoot, dir, packageName(dir)) }))
    // A package installed in the project's own node_modules wins over a hoisted one of the same name.
    .sort((a, b) => Number(isInside(root, b.dir)) - Number(isInside(root, a.dir)));
  const taken = new Set<string>();
  for (const { dir, at } of placed) {
    if (taken.has(at)) continue;
    taken.add(at);
    for (const file of packageFiles(dir)) {
      files.set(`${at}/${file.split(sep).join('/')}`, join(dir, file));
      native ||= file.endsWith('.node');
    }
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { os?: unknown; cpu?: unknown };
    native ||= manifest.os !== undefined || manifest.cpu !== undefined;
  }
  const problems = ls.stderr
    .split('\n')
    .filter((line) => /\b(invalid|missing|extraneous)\b/.test(line))
    .map((line) => line.replace(/^npm (error|warn) /, '').trim());
  return { files, native, problems };
}

/**
 * The clients' configurations `mcpkit install` writes into a project, and their backups ('/'-separated): they name
 * this machine's paths, and may hold header values, so no bundle carries them.
 */
function clientConfigs(root: string): Set<string> {
  const paths = CLIENTS.filter((c) => c.scopes.includes('project')).map((c) =>
    relative(root, c.file('project', root)).split(sep).join('/'),
  );
  return new Set(paths.flatMap((path) => [path, `${path}.bak`]));
}

const isInside = (root: string, dir: string) => {
  const at = relative(root, dir);
  return at !== '' && !at.startsWith('..') && !isAbsolute(at);
};

/**
 * Where an installed package goes in the bundle ('/'-separated): its place under the project, else under
 * npm's root (a workspace's hoisted packages), else `node_modules/<name>` (a link to a folder elsewhere).
 */
export function bundlePath(root: string, npmRoot: string, dir: string, name: string): string {
  const at = isInside(root, dir) ? relative(root, dir) : isInside(npmRoot, dir) ? relative(npmRoot, dir) : '';
  const path = at.split(sep).join('/');
  return path.startsWith('node_modules/') ? path : `node_modules/${name}`;
}

function packageName(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string }).name;
}

/** The files of an installed package, without its own node_modules (npm ls lists those separately). */
function packageFiles(dir: string, under = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, under), { withFileTypes: true })) {
    const path = join(under, entry.name);
    const isDirectory = entry.isDirectory() || (entry.isSymbolicLink() && statSync(join(dir, path)).isDirectory());
    if (isDirectory) {
      if (entry.name !== 'node_modules') out.push(...packageFiles(dir, path));
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      out.push(path);
    }
  }
  return out;
}

/**
 * Writes the bundle as it is made, a chunk at a time (a bundle holds node_modules: it is never whole in memory):
 * manifest.json, then the files in order of their paths, each with its permission bits (an executable stays one)
 * and the same time. A bundle left half-written by a failure is removed.
 */
export async function writeBundle(
  out: string,
  manifest: Record<string, unknown>,
  files: ReadonlyMap<string, string>,
): Promise<{ bytes: number; sha256: string }> {
  // fflate (8 kB, no dependencies) writes the zip; loaded only by this command.
  const { Zip, ZipDeflate } = await import('fflate');
  const sink = createWriteStream(out);
  const hash = createHash('sha256');
  let bytes = 0;
  let failure: Error | undefined;
  sink.on('error', (error) => (failure ??= error));
  const zip = new Zip((error, chunk, final) => {
    if (error) {
      failure ??= error;
      return;
    }
    hash.update(chunk);
    bytes += chunk.byteLength;
    sink.write(chunk);
    if (final) sink.end();
  });
  const add = async (path: string, mode: number, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) => {
    const entry = new ZipDeflate(path, { level: 9 });
    entry.mtime = ENTRY_TIME;
    entry.os = 3;
    entry.attrs = ((0o100000 | (mode & 0o777)) << 16) >>> 0;
    zip.add(entry);
    for await (const chunk of chunks) {
      entry.push(chunk);
      if (failure) throw failure;
      if (sink.writableNeedDrain) await once(sink, 'drain');
    }
    entry.push(new Uint8Array(0), true);
  };
  try {
    await add('manifest.json', 0o644, [Buffer.from(JSON.stringify(manifest, null, 2) + '\n')]);
    for (const path of [...files.keys()].sort()) {
      const file = files.get(path)!;
      if (path !== 'manifest.json') await add(path, statSync(file).mode, createReadStream(file));
    }
    zip.end();
    await finished(sink);
    if (failure) throw failure;
  } catch (error) {
    sink.destroy();
    if (!sink.closed) await once(sink, 'close');
    rmSync(out, { force: true });
    throw new CliError(`cannot write ${shown(out)}: ${(error as Error).message}`);
  }
  return { bytes, sha256: hash.digest('hex') };
}
