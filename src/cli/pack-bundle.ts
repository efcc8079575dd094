import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { CliError, firstLine } from './cli-error';

/** A bundle's entries, by their path inside it ('/'-separated). */
export type BundleFiles = Map<string, string>;

/** Every entry gets this time, so that the same files make the same bundle, byte for byte. */
const ENTRY_TIME = new Date(2000, 0, 1);

function npm(root: string, args: string[]): string {
  const run = spawnSync('npm', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, shell: process.platform === 'win32' });
  if (run.error) throw new CliError(`cannot run npm ${args[0]}: ${run.error.message}`);
  if (run.status !== 0)
    throw new CliError(
      `npm ${args.join(' ')} failed in ${root}: ${firstLine(run.stderr.replace(/^npm (error|warn) /gm, '') || run.stdout)}`,
    );
  return run.stdout;
}

/**
 * What goes into the bundle: the files npm would publish (so `files` and .npmignore decide, as for npm)
 * and every production dependency as installed, each file by its absolute path.
 */
export function bundleFiles(root: string): BundleFiles {
  const files: BundleFiles = new Map();
  const packed = npm(root, ['pack', '--dry-run', '--json', '--ignore-scripts']);
  const listed = JSON.parse(packed.slice(packed.indexOf('['))) as { files: { path: string }[] }[];
  // An earlier bundle in the folder stays out of the next.
  for (const { path } of listed[0].files) if (!path.endsWith('.mcpb')) files.set(path, join(root, path));
  const dependencies = npm(root, ['ls', '--omit=dev', '--all', '--parseable'])
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && line !== root);
  for (const dir of dependencies) {
    const at = relative(root, dir);
    const inBundle = at.startsWith('..') || isAbsolute(at) ? join('node_modules', packageName(dir)) : at;
    for (const file of packageFiles(dir)) files.set(join(inBundle, file).split(sep).join('/'), join(dir, file));
  }
  return files;
}

function packageName(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string }).name;
}

/** The files of an installed package, without its own node_modules (npm ls lists those separately). */
function packageFiles(dir: string, under = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, under), { withFileTypes: true })) {
    const path = join(under, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...packageFiles(dir, path));
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      out.push(path);
    }
  }
  return out;
}

/** Writes the bundle: manifest.json first, then the files in order of their paths. */
export async function writeBundle(
  out: string,
  manifest: Record<string, unknown>,
  files: BundleFiles,
): Promise<{ bytes: number; sha256: string }> {
  // fflate (8 kB, no dependencies) writes the zip; loaded only by this command.
  const { zipSync } = await import('fflate');
  const entries: Record<string, [Uint8Array, { mtime: Date }]> = {
    'manifest.json': [Buffer.from(JSON.stringify(manifest, null, 2) + '\n'), { mtime: ENTRY_TIME }],
  };
  for (const path of [...files.keys()].sort()) {
    if (path !== 'manifest.json') entries[path] = [readFileSync(files.get(path)!), { mtime: ENTRY_TIME }];
  }
  const zip = zipSync(entries, { level: 9 });
  writeFileSync(out, zip);
  return { bytes: zip.byteLength, sha256: createHash('sha256').update(zip).digest('hex') };
}
