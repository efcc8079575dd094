import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type CliRun, cleanEnv, run } from './cli';

/** The final stage of a Dockerfile played without Docker: its folder, environment, user, CMD and HEALTHCHECK. */
export interface PlayedImage {
  /** The final stage's WORKDIR, as a folder of this machine. */
  dir: string;
  env: Record<string, string>;
  user: string;
  cmd: string[];
  healthcheck: string[];
}

/**
 * Plays a multi-stage Dockerfile on this machine, as far as it can be without Docker: each stage's
 * WORKDIR is a folder under `into`; COPY takes files from `context` (or, with --from, from an earlier
 * stage's folder), a source with a `*` matching nothing is skipped as Docker skips it beside sources that
 * match; RUN runs with `sh -c` there, with the stage's ENV and `env` on top (an npm cache setting, say).
 * The base image is this machine. What it reads of the rest: ENV, USER, CMD and HEALTHCHECK in exec form.
 */
export async function playDockerfile(file: string, context: string, into: string, env: NodeJS.ProcessEnv = {}): Promise<PlayedImage> {
  /** Each stage's folder and WORKDIR, by name. */
  const stages = new Map<string, { dir: string; workdir: string }>();
  let image: PlayedImage | undefined;
  let workdir = '/';
  for (const { op, args } of instructions(readFileSync(file, 'utf8'))) {
    if (op === 'FROM') {
      const name = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? String(stages.size);
      image = { dir: join(into, name), env: {}, user: 'root', cmd: [], healthcheck: [] };
      workdir = '/';
      stages.set(name, { dir: image.dir, workdir });
      continue;
    }
    if (!image) throw new Error(`${op} before FROM`);
    const stage = image;
    const at = (path: string) => join(stage.dir, path.startsWith('/') ? path.slice(workdir.length) : path);
    switch (op) {
      case 'WORKDIR':
        workdir = args;
        stages.get([...stages.keys()].pop()!)!.workdir = workdir;
        mkdirSync(stage.dir, { recursive: true });
        break;
      case 'ENV':
        for (const m of args.matchAll(/(\w+)=("[^"]*"|\S*)/g)) stage.env[m[1]] = m[2].replace(/^"|"$/g, '');
        break;
      case 'COPY': {
        const words = args.split(/\s+/);
        const earlier = words[0].startsWith('--from=') ? stages.get(words.shift()!.slice(7)) : { dir: context, workdir: '/' };
        if (!earlier) throw new Error(`COPY --from names no earlier stage: ${args}`);
        const from = earlier.dir;
        const dest = words.pop()!;
        const relative = (w: string) => (w.startsWith(earlier.workdir) ? w.slice(earlier.workdir.length) : w).replace(/^\/+/, '');
        for (const source of words.flatMap((w) => matches(from, relative(w)))) {
          const target = dest.endsWith('/') ? join(at(dest), source.split('/').pop()!) : at(dest);
          mkdirSync(dirname(target), { recursive: true });
          cpSync(join(from, source), target, { recursive: true, verbatimSymlinks: true });
        }
        break;
      }
      case 'RUN': {
        const result = await run('sh', ['-c', args], { cwd: stage.dir, env: cleanEnv({ ...stage.env, ...env }), timeoutMs: 240_000 });
        if (result.code !== 0) throw new Error(`RUN ${args} failed:\n${result.stdout}${result.stderr}`);
        break;
      }
      case 'USER':
        stage.user = args;
        break;
      case 'CMD':
        stage.cmd = JSON.parse(args) as string[];
        break;
      case 'HEALTHCHECK':
        stage.healthcheck = JSON.parse(args.slice(args.indexOf('CMD') + 3)) as string[];
        break;
    }
  }
  if (!image) throw new Error(`no FROM in ${file}`);
  return image;
}

/** Runs an exec-form command of the image (CMD, HEALTHCHECK) in its folder with its environment, `node` being this Node. */
export function runInImage(image: PlayedImage, command: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const [program, ...args] = command;
  return run(program === 'node' ? process.execPath : program, args, { cwd: image.dir, env: cleanEnv({ ...image.env, ...env }) });
}

/** The instructions, continuation lines joined, comments left out. */
function instructions(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const space = line.indexOf(' ');
      return { op: line.slice(0, space).toUpperCase(), args: line.slice(space + 1).trim() };
    });
}

/** The paths a COPY source names in `base`: itself, or with a `*` in its last part, the names it matches. */
function matches(base: string, source: string): string[] {
  const path = source.replace(/^\.\//, '').replace(/\/$/, '');
  if (!path.includes('*')) {
    if (!existsSync(join(base, path))) throw new Error(`COPY: no ${path} in ${base}`);
    return [path];
  }
  const dir = dirname(path) === '.' ? '' : dirname(path);
  const pattern = new RegExp(
    `^${path
      .split('/')
      .pop()!
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')}$`,
  );
  return readdirSync(join(base, dir))
    .filter((name) => pattern.test(name))
    .map((name) => (dir ? `${dir}/${name}` : name));
}
