import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError } from './cli-error';
import { buildCommand, buildOnce, compiledPath, findUp, isTypeScript, packageMain, shown, tsProjectFor, type TsProject } from './project';

/** What an entry argument resolves to: the JavaScript to load, and the TS project when it came from one. */
export interface ResolvedEntry {
  readonly js: string;
  readonly project?: TsProject;
}

export interface EntryOptions {
  /** `module` (inspect, call): a file exporting an @McpModule class; `main` (dev): a file that serves. */
  readonly kind: 'module' | 'main';
  /** Build a TypeScript entry's project before loading its output (default true). */
  readonly build?: boolean;
  /** An explicit tsconfig. */
  readonly project?: string;
}

const DEFAULT_FILE = { module: 'app.module', main: 'main' } as const;

/**
 * Resolves the entry argument (or the default: `src/app.module.ts` for a module, the package's
 * `main` or `src/main.ts` for a server) to the JavaScript to run; a TypeScript path is built and
 * mapped to its output through the tsconfig's rootDir/outDir.
 */
export function resolveEntry(arg: string | undefined, options: EntryOptions): ResolvedEntry {
  const file = arg === undefined ? defaultEntry(options.kind) : explicitEntry(arg, options.kind);
  if (!isTypeScript(file)) return { js: file };
  const project = tsProjectFor(file, options.project);
  if (options.build !== false) buildOnce(project);
  const js = compiledPath(file, project);
  if (!existsSync(js)) {
    throw new CliError(
      `compiled output of ${shown(file)} not found at ${shown(js)}: build with ${buildCommand(project)}, or check rootDir/outDir in ${shown(project.tsconfig)}`,
    );
  }
  return { js, project };
}

function explicitEntry(arg: string, kind: EntryOptions['kind']): string {
  const path = resolve(arg);
  if (!existsSync(path)) throw new CliError(`entry file not found: ${arg}; pass the .js (or .ts) file that ${what(kind)}`);
  if (!statSync(path).isDirectory()) return path;
  const inside = [`${DEFAULT_FILE[kind]}.ts`, `${DEFAULT_FILE[kind]}.js`].map((f) => join(path, f)).find((f) => existsSync(f));
  if (!inside)
    throw new CliError(
      `entry file not found: ${arg} is a directory without ${DEFAULT_FILE[kind]}.ts or .js; pass the file that ${what(kind)}`,
    );
  return inside;
}

function defaultEntry(kind: EntryOptions['kind']): string {
  const dir = findUp('package.json', process.cwd()) ?? process.cwd();
  const main = kind === 'main' ? packageMain(dir) : undefined;
  const candidates = [...(main ? [main] : []), join(dir, 'src', `${DEFAULT_FILE[kind]}.ts`)];
  const found = candidates.find((c) => existsSync(c));
  // A package's main may be compiled output that does not exist before the first build.
  if (found) return found;
  if (main) return main;
  throw new CliError(`entry file not found: no ${shown(candidates[candidates.length - 1])}; pass the file that ${what(kind)}`);
}

const what = (kind: EntryOptions['kind']) =>
  kind === 'module' ? 'exports your @McpModule class (e.g. dist/app.module.js)' : 'starts your server (e.g. src/main.ts)';
