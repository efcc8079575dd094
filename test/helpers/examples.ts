import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { ROOT } from './paths';

/**
 * The examples run from their TypeScript sources under tsx, as their READMEs tell users to run them;
 * tsx maps `mcpkit` and `mcpkit/*` to src/ through tsconfig.json's `paths`, from the repository root.
 */
const TSX_CLI = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** An example's entry point, e.g. `example('database')` for examples/database/main.ts. */
export function example(name: string, file = 'main.ts'): string {
  return join(ROOT, 'examples', name, file);
}

/** Spawns an example over stdio and connects the official SDK client to it. */
export async function connectExampleOverStdio(
  script: string,
  options: {
    args?: string[];
    env?: Record<string, string>;
    capabilities?: ClientCapabilities;
    /** Called before connecting: where a test sets the client's request handlers (roots, sampling…). */
    setup?: (client: Client) => void;
  } = {},
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TSX_CLI, script, '--stdio', ...(options.args ?? [])],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'examples-test', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  options.setup?.(client);
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`${String(error)}\n${stderr}`, { cause: error });
  }
  return { client, transport, stderr: () => stderr };
}

/** Spawns an example serving HTTP on PORT=0 and resolves with the first `http://…` URL it prints on stderr. */
export async function spawnExample(
  script: string,
  env: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess; stderr: () => string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [TSX_CLI, script], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`example did not start: ${stderr}`));
    }, 90_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const m = /(http:\/\/[^\s,)]+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`example exited with ${code}: ${stderr}`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  return { url, child, stderr: () => stderr, stop };
}
