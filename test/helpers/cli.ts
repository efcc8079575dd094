import { execFile } from 'node:child_process';
import { cpSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ROOT } from './paths';

/** The compiled CLI, as `npm test` builds it (the published package maps it to bin `mcpkit`). */
export const CLI = join(ROOT, 'dist', 'src', 'cli', 'bin.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without the npm_* variables of the `npm test` that runs us, which would steer inner npm runs. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
  return { ...env, ...extra };
}

/** Runs a program to its end and collects its output (never rejects on a non-zero exit). */
export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd ?? ROOT, env: options.env ?? cleanEnv(), timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** `mcpkit <args>` through the compiled CLI. */
export function mcpkit(args: string[], cwd: string = ROOT): Promise<CliRun> {
  return run(process.execPath, [CLI, ...args], { cwd });
}

/** The packed package (`npm pack` of this tree), copied into `into`: the way a project gets mcpkit before it is on the registry. */
export async function packMcpkit(into: string): Promise<string> {
  // Loaded here: packed-tarball imports this file.
  const { packedTarball } = await import('./packed-tarball');
  const { tarball } = await packedTarball();
  const copy = join(into, basename(tarball));
  cpSync(tarball, copy);
  return copy;
}
