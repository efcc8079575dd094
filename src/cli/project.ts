import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { CliError } from './cli-error';

/** Where a TypeScript project keeps its sources and its compiled output. */
export interface TsProject {
  /** The directory of the tsconfig. */
  readonly dir: string;
  readonly tsconfig: string;
  readonly rootDir?: string;
  readonly outDir?: string;
  /** The source files the tsconfig compiles. */
  readonly files: readonly string[];
}

/** The nearest directory at or above `from` that holds `file`, or undefined. */
export function findUp(file: string, from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, file))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** A path relative to the working directory when it is inside it, for short messages. */
export function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** The project's `main` field, resolved, when its package.json has one. */
export function packageMain(dir: string): string | undefined {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  const main = (JSON.parse(readFileSync(file, 'utf8')) as { main?: unknown }).main;
  return typeof main === 'string' ? resolve(dir, main) : undefined;
}

/** The project's own TypeScript compiler, else the one next to mcpkit. */
export function tscPath(dir: string): string {
  try {
    return require.resolve('typescript/bin/tsc', { paths: [dir, __dirname] });
  } catch {
    throw new CliError(`TypeScript is not installed for ${shown(dir)}: run npm install --save-dev typescript`);
  }
}

/** Reads a tsconfig (comments, `extends` and all) through `tsc --showConfig`. */
export function readTsProject(tsconfig: string): TsProject {
  const file = resolve(tsconfig);
  if (!existsSync(file)) throw new CliError(`tsconfig not found: ${shown(file)}; pass --project <tsconfig.json>`);
  const dir = dirname(file);
  const run = spawnSync(process.execPath, [tscPath(dir), '-p', file, '--showConfig'], { cwd: dir, encoding: 'utf8' });
  if (run.status !== 0) throw new CliError(`cannot read ${shown(file)}: ${(run.stdout + run.stderr).trim().split('\n')[0]}`);
  const config = JSON.parse(run.stdout) as { compilerOptions?: { rootDir?: string; outDir?: string }; files?: string[] };
  const options = config.compilerOptions ?? {};
  return {
    files: (config.files ?? []).map((f) => resolve(dir, f)),
    dir,
    tsconfig: file,
    rootDir: options.rootDir === undefined ? undefined : resolve(dir, options.rootDir),
    outDir: options.outDir === undefined ? undefined : resolve(dir, options.outDir),
  };
}

/** The tsconfig that compiles `file`: `--project` when given, else the nearest tsconfig.json above it. */
export function tsProjectFor(file: string, project?: string): TsProject {
  if (project) return readTsProject(project);
  const dir = findUp('tsconfig.json', dirname(file));
  if (!dir) throw new CliError(`no tsconfig.json above ${shown(file)}: pass the compiled .js file, or --project <tsconfig.json>`);
  return readTsProject(join(dir, 'tsconfig.json'));
}

/** The command line that builds a project, as shown in messages. */
export function buildCommand(project: TsProject): string {
  return `tsc -p ${shown(project.tsconfig)}`;
}

export const buildArgs = (project: TsProject): string[] => [tscPath(project.dir), '-p', project.tsconfig];

/** Builds the project once; compiler output goes to stderr so that stdout stays the command's own. */
export function buildOnce(project: TsProject): void {
  const run = spawnSync(process.execPath, buildArgs(project), { cwd: project.dir, stdio: ['ignore', 2, 2] });
  if (run.status !== 0) throw buildFailed(project);
}

export function buildFailed(project: TsProject): CliError {
  return new CliError(`build failed: ${buildCommand(project)} reported errors (above); fix them and run again`);
}

const TS_EXTENSIONS: Record<string, string> = { '.ts': '.js', '.mts': '.mjs', '.cts': '.cjs', '.tsx': '.js' };

export const isTypeScript = (file: string): boolean => extname(file) in TS_EXTENSIONS && !file.endsWith('.d.ts');

/**
 * Where tsc writes the JavaScript of a source file: rootDir -> outDir. Without an explicit rootDir,
 * tsc uses the common directory of the sources; the tsconfig's directory and its src/ are the usual
 * answers, and the one whose output exists wins.
 */
export function compiledPath(file: string, project: TsProject): string {
  const js = (root: string) => {
    const rel = relative(root, file);
    const out = project.outDir ? join(project.outDir, rel) : file;
    return out.slice(0, -extname(out).length) + TS_EXTENSIONS[extname(out)];
  };
  if (project.rootDir || !project.outDir) return js(project.rootDir ?? project.dir);
  const candidates = [project.dir, join(project.dir, 'src'), dirname(file)]
    .filter((root) => !relative(root, file).startsWith('..'))
    .map(js);
  return candidates.find((c) => existsSync(c)) ?? candidates[0];
}
