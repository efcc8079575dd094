import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type * as Chokidar from 'chokidar';
import type { FSWatcher } from 'chokidar';
import type { Command } from './command';
import { parseCommandArgs } from './command';
import { CliError } from './cli-error';
import { DevServer } from './dev-server';
import { resolveEntry } from './entry';
import { buildArgs, buildCommand, buildFailed, findUp, readTsProject, shown, type TsProject } from './project';

const DEBOUNCE_MS = 150;
const SOURCE = /\.(ts|tsx|mts|cts|json)$/;

export const devCommand: Command = {
  name: 'dev',
  summary: 'build, serve, and rebuild and restart the server on every change (same port)',
  help: `Usage: mcpkit dev [entry] [--stdio] [--port <n>] [-- server arguments]

Builds the project (tsc -p tsconfig.json), starts the server, and on every change to its sources
rebuilds and restarts it. Over HTTP the server keeps its port (PORT is passed through); with --stdio,
stdout carries protocol messages only (build output and logs go to stderr) and the client's session
carries over to each new server process. A failed rebuild keeps the last good server running.

Entry: the file that starts your server; default the package.json "main", else src/main.ts (a .ts
path runs its compiled output, by the tsconfig's rootDir/outDir).

  --stdio              serve over stdio (the server gets --stdio)
  --port <n>           the HTTP port (default: PORT, else 3000)
  -p, --project <file> the tsconfig (default: the nearest tsconfig.json)`,

  async run(args) {
    const { values, positionals } = parseCommandArgs('dev', args, {
      stdio: { type: 'boolean' },
      port: { type: 'string' },
      project: { type: 'string', short: 'p' },
    });
    const extra = args.includes('--') ? args.slice(args.indexOf('--') + 1) : [];
    const entries = positionals.slice(0, positionals.length - extra.length);
    if (entries.length > 1)
      throw new CliError(`dev takes one entry, got ${entries.length}; server arguments go after -- (see mcpkit dev --help)`, 2);
    const entryArg = entries[0];
    const port = values.port ?? process.env.PORT ?? '3000';
    if (!/^\d+$/.test(port)) throw new CliError(`--port must be a number, got "${port}"`, 2);
    const log = (line: string): void => void process.stderr.write(`mcpkit dev: ${line}\n`);

    const project = readTsProject(values.project ?? join(findUp('tsconfig.json', process.cwd()) ?? process.cwd(), 'tsconfig.json'));
    if (!(await build(project))) throw buildFailed(project);
    const entry = resolveEntry(entryArg, { kind: 'main', build: false, project: project.tsconfig });
    if (!existsSync(entry.js))
      throw new CliError(
        `entry file not found: ${shown(entry.js)} (after ${buildCommand(project)}); pass the file that starts your server, or fix "main" in package.json`,
      );
    const changes = { changed: (_file: string): void => undefined };
    const watchers = await watchSources(project, (file) => changes.changed(file));
    const server = new DevServer({
      js: entry.js,
      args: [...(values.stdio ? ['--stdio'] : []), ...extra],
      env: { ...process.env, PORT: port, MCPKIT_DEV: '1' },
      stdio: values.stdio === true,
      log,
    });
    server.start();
    log(
      values.stdio
        ? `serving ${shown(entry.js)} over stdio`
        : `serving ${shown(entry.js)} on PORT=${port} (http://127.0.0.1:${port}/mcp unless your main says otherwise)`,
    );

    return new Promise<number>((done) => {
      let timer: NodeJS.Timeout | undefined;
      let running: Promise<void> | undefined;
      let again = false;
      const rebuild = async () => {
        log(`change detected: ${buildCommand(project)}`);
        if (await build(project)) {
          await server.restart();
          log('rebuilt and restarted');
        } else {
          log('build failed (errors above); the last good build keeps running');
        }
      };
      const schedule = () => {
        if (running) {
          again = true;
          return;
        }
        running = rebuild()
          .catch((error: unknown) => log(`could not rebuild: ${(error as Error).message}`))
          .finally(() => {
            running = undefined;
            if (again) {
              again = false;
              schedule();
            }
          });
      };
      changes.changed = (file) => {
        if (!SOURCE.test(file)) return;
        clearTimeout(timer);
        timer = setTimeout(schedule, DEBOUNCE_MS);
      };
      const finish = () => {
        clearTimeout(timer);
        for (const w of watchers) void w.close();
        server.close().then(
          () => done(0),
          () => done(1),
        );
      };
      if (values.stdio) server.attachClient(process.stdin, finish);
      process.once('SIGINT', finish);
      process.once('SIGTERM', finish);
    });
  },
};

/** Runs tsc once; its output goes to stderr. Resolves with whether the build succeeded. */
function build(project: TsProject): Promise<boolean> {
  return new Promise((resolveBuild) => {
    const tsc = spawn(process.execPath, buildArgs(project), { cwd: project.dir, stdio: ['ignore', 2, 2] });
    tsc.once('error', () => resolveBuild(false));
    tsc.once('close', (code) => resolveBuild(code === 0));
  });
}

/**
 * Watches the directories that hold the project's sources (the first level under the tsconfig's
 * directory, recursively; never node_modules or the output) and the tsconfig itself; resolves once
 * the watchers are in place, so a change made after the server is up is never missed.
 *
 * chokidar rather than fs.watch: Node 20's recursive fs.watch on Linux watches each file's inode, so
 * a file an editor saves by rename (vim, JetBrains' safe write, `sed -i`) goes unseen from its second
 * save on, and `mcpkit dev` would keep serving stale code.
 */
async function watchSources(project: TsProject, changed: (file: string) => void): Promise<FSWatcher[]> {
  const { watch } = loadChokidar();
  const roots = new Set<string>();
  for (const file of project.files) {
    const rel = relative(project.dir, file);
    if (rel.startsWith('..') || rel.split(sep).includes('node_modules')) continue;
    const top = rel.split(sep)[0];
    roots.add(top === rel ? project.dir : join(project.dir, top));
  }
  const out = project.outDir ? resolve(project.outDir) : undefined;
  const inside = (dir: string, file: string) => {
    const rel = relative(dir, file);
    return !rel.startsWith('..') && !isAbsolute(rel);
  };
  const ignored = (file: string) => file.split(sep).includes('node_modules') || (out !== undefined && inside(out, file));
  const report = (file: string) => {
    if (!ignored(file)) changed(file);
  };
  const nested = [...roots].filter((root) => root !== project.dir);
  const watchers: FSWatcher[] = [];
  if (nested.length > 0) watchers.push(watch(nested, { ignoreInitial: true, ignored }).on('all', (_event, file) => report(file)));
  // The tsconfig's own directory, one level deep: its top-level sources when it has any, and the tsconfig.
  const topLevel = roots.has(project.dir);
  watchers.push(
    watch(project.dir, { ignoreInitial: true, depth: 0, ignored }).on('all', (_event, file) => {
      if (resolve(file) === project.tsconfig || (topLevel && resolve(file, '..') === project.dir)) report(file);
    }),
  );
  await Promise.all(watchers.map((w) => new Promise<void>((ready) => w.once('ready', () => ready()))));
  return watchers;
}

/** chokidar, loaded on first use: only `mcpkit dev` watches files, and the CLI's other commands start without it. */
function loadChokidar(): typeof Chokidar {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('chokidar') as typeof Chokidar;
}
