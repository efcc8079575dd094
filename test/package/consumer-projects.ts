import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cleanEnv } from '../helpers/cli';
import { ROOT } from '../helpers/paths';

const run = promisify(execFile);

/** Runs a command in `cwd`; a failure carries its output. */
export async function sh(
  cwd: string,
  command: string,
  args: string[],
  env: Record<string, string> = {},
  timeout = 120_000,
): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env: cleanEnv(env), timeout, maxBuffer: 16 * 1024 * 1024 });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`, { cause: error });
  }
}

/** Installs packages from the registry; says so clearly when the registry cannot be reached. */
export async function npmInstall(cwd: string, specs: string[]): Promise<void> {
  try {
    await sh(cwd, 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs], {}, 150_000);
  } catch (error) {
    throw new Error(
      `Installing into a temporary project needs the npm registry (or its cache); the install failed:\n${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** The README's example: the first ```ts block after the comment that names this test. */
export function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const marker = readme.indexOf('test/package/package.spec.ts');
  const start = readme.indexOf('```ts\n', marker) + '```ts\n'.length;
  return readme.slice(start, readme.indexOf('```', start));
}

/** The peers at the versions mcpkit declares, and the runners the consumer projects use. */
export function consumerDependencies(tarball: string): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
  const peers = Object.entries(pkg.peerDependencies).map(([name, range]) => `${name}@${range}`);
  return [tarball, ...peers, 'typescript@5.9', '@types/node@22', 'tsx@4', 'vitest@3'];
}

/** A project folder with its package.json and tsconfig.json (node_modules come from the parent folder). */
export function project(
  root: string,
  name: string,
  type: 'module' | 'commonjs',
  compilerOptions: Record<string, unknown>,
  files: Record<string, string>,
): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type }));
  const base = {
    target: 'ES2022',
    strict: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    outDir: 'out',
    rootDir: 'src',
    types: ['node'],
    skipLibCheck: false,
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...base, ...compilerOptions }, include: ['src'] }));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}
