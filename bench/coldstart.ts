import { spawn } from 'node:child_process';
import { join } from 'node:path';

const SERVERS = join(__dirname, 'servers');
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const CALL = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } };
const SCRIPT = [INIT, INITIALIZED, CALL].map((m) => `${JSON.stringify(m)}\n`).join('');

/** Milliseconds from spawning `server` (stdio) to its answer to the first tools/call, written at once. */
function once(server: string): Promise<number> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [join(SERVERS, server)], {
    env: { ...process.env, MODE: 'stdio', TOOLS: '1' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  child.stdin.write(SCRIPT);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${server} gave no answer within 10 s: ${out}`));
    }, 10_000);
    child.once('exit', (code) => reject(new Error(`${server} exited with ${code} before answering: ${out}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const answered = out
        .split('\n')
        .slice(0, -1)
        .some((line) => line.includes('"hello"') && (JSON.parse(line) as { id?: unknown }).id === 2);
      if (!answered) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.kill('SIGKILL');
      resolve(ms);
    });
  });
}

export interface ColdStartRow {
  impl: string;
  median: number;
  p90: number;
}

/**
 * Cold start over stdio: spawn a server `runs` times (alternating implementations, so that a busy
 * moment of the machine hits them alike) and time spawn -> first tools/call answer.
 */
export async function coldStart(runs: number): Promise<ColdStartRow[]> {
  const servers: Record<string, string> = {
    mcpkit: 'mcpkit-server.js',
    sdk: 'sdk-server.js',
    'bare node': 'bare-server.js',
    'node + peers': 'peers-server.js',
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(servers).map((impl) => [impl, []]));
  for (const script of Object.values(servers)) await once(script); // warm the file cache
  for (let i = 0; i < runs; i++) {
    for (const [impl, script] of Object.entries(servers)) times[impl].push(await once(script));
  }
  return Object.entries(times).map(([impl, t]) => {
    const sorted = [...t].sort((a, b) => a - b);
    return {
      impl,
      median: sorted[Math.floor(sorted.length / 2)],
      p90: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))],
    };
  });
}
