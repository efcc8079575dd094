import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** What test/fixtures/dpop-client.mjs printed: the token type it got and the answers of two `whoami` calls. */
export interface DpopClientRun {
  tokenType?: string;
  answers: string[];
}

/**
 * Runs the official SDK 2.x client with its own DPoP (test/fixtures/dpop-client.mjs) in its own process,
 * with `env` (MCP_URL, MODE, FLOW and what the flow needs); resolves with what it printed, rejects with
 * its stderr when it fails.
 */
export function runDpopClient(env: Record<string, string>): Promise<DpopClientRun> {
  const child = spawn(process.execPath, [join(__dirname, '..', 'fixtures', 'dpop-client.mjs')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as DpopClientRun) : reject(new Error(`dpop-client exited ${code}: ${err}`)),
    ),
  );
}
