import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Starts a compiled HTTP server on PORT=0 and resolves with the URL it prints on stderr once it
 * listens: the kernel picks the port, so no other process can take it between a probe and the bind.
 */
export async function spawnHttpServer(
  script: string,
  env: Record<string, string> = {},
  /** Another runtime than this Node (bun, deno), with its arguments before the script (and a working directory). */
  runtime: { command: string; args: string[]; cwd?: string } = { command: process.execPath, args: [] },
): Promise<{ url: string; port: number; child: ChildProcess; stderr: () => string; stop: () => Promise<void> }> {
  const child = spawn(runtime.command, [...runtime.args, script], {
    env: { ...process.env, PORT: '0', ...env },
    cwd: runtime.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => {
        child.kill('SIGKILL');
        reject(new Error(`server did not start: ${stderr}`));
        // Another runtime may compile (Deno) or resolve packages on its first start.
      },
      runtime.command === process.execPath ? 15_000 : 60_000,
    );
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const m = /(http:\/\/[^\s]+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  const port = Number(new URL(url).port);
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  return { url, port, child, stderr: () => stderr, stop };
}
