import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensureLib } from './module-load';

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

/**
 * Milliseconds from spawning `node ...args` (a stdio server) to its answer to the first tools/call, written
 * at once; and the CPU milliseconds the server's process had used when it wrote that answer
 * (servers/cpu-at-answer.ts, preloaded, reports it on stderr).
 */
function once(
  { args, env }: Server,
  peersFirst: boolean,
  lingerMs = 0,
): Promise<{ ms: number; cpu: number; overPeers?: number; faults: number; faultsOverPeers?: number }> {
  const server = args[args.length - 1];
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, ['-r', join(SERVERS, 'cpu-at-answer.js'), ...args], {
    env: { ...process.env, MODE: 'stdio', TOOLS: '1', PEERS_FIRST: peersFirst ? '1' : '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.write(SCRIPT);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    let ms: number | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${server} gave no answer within 10 s: ${out}`));
    }, 10_000);
    child.once('exit', (code) => reject(new Error(`${server} exited with ${code} before answering: ${out}${err}`)));
    const done = () => {
      const cpu = /^cpu (\S+)(?: (\S+))?$/m.exec(err);
      const faults = /^faults (\d+)(?: (\d+))?$/m.exec(err);
      if (ms === undefined || !cpu || !faults) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      setTimeout(() => child.kill('SIGKILL'), lingerMs);
      resolve({
        ms,
        cpu: Number(cpu[1]),
        overPeers: cpu[2] === undefined ? undefined : Number(cpu[2]),
        faults: Number(faults[1]),
        faultsOverPeers: faults[2] === undefined ? undefined : Number(faults[2]),
      });
    };
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
      done();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const answered = out
        .split('\n')
        .slice(0, -1)
        .some((line) => line.includes('"hello"') && (JSON.parse(line) as { id?: unknown }).id === 2);
      if (!answered || ms !== undefined) return;
      ms = Number(process.hrtime.bigint() - started) / 1e6;
      done();
    });
  });
}

interface Server {
  args: string[];
  env?: NodeJS.ProcessEnv;
}

/** Past the moment lib/index.js saves the bundle's V8 code cache (src/code-cache.ts: 1 s after the load). */
const SAVE_LINGER_MS = 1500;

export interface ColdStartRow {
  impl: string;
  median: number;
  p90: number;
  /** Median CPU milliseconds of the server's process up to its first answer. */
  cpu: number;
  /** For the servers over mcpkit's peers: median CPU milliseconds from the peers loaded to the first answer. */
  overPeers?: number;
  /** Median minor page faults up to the first answer (memory touched for the first time), and from the peers loaded. */
  faults: number;
  faultsOverPeers?: number;
}

/**
 * Cold start over stdio: spawn a server `runs` times (alternating implementations, so that a busy
 * moment of the machine hits them alike) and time spawn -> first tools/call answer.
 * `mcpkit` is what users install: servers/mcpkit-server.ts on the published lib/ (bundled by
 * scripts/bundle-lib.js; the bench builds it when stale, see ensureLib in module-load.ts), its imports of src redirected there by
 * servers/use-lib.ts. `mcpkit (tsc)` is the same server on tsc's output (dist/src, a file per module).
 */
export async function coldStart(runs: number): Promise<ColdStartRow[]> {
  ensureLib();
  const onLib = ['-r', join(SERVERS, 'use-lib.js'), join(SERVERS, 'mcpkit-server.js')];
  const servers: Record<string, Server> = {
    mcpkit: { args: onLib },
    'mcpkit (no code cache)': { args: onLib, env: { MCPKIT_CODE_CACHE: '0' } },
    'mcpkit (tsc)': { args: [join(SERVERS, 'mcpkit-server.js')] },
    sdk: { args: [join(SERVERS, 'sdk-server.js')] },
    'bare node': { args: [join(SERVERS, 'bare-server.js')] },
    'node + peers': { args: [join(SERVERS, 'peers-server.js')] },
  };
  // The servers whose CPU time over the peers is taken (the preload loads the peers first).
  const overPeers = (impl: string) => impl.startsWith('mcpkit') || impl === 'node + peers';
  const times: Record<string, Awaited<ReturnType<typeof once>>[]> = Object.fromEntries(Object.keys(servers).map((impl) => [impl, []]));
  // Warms the file cache; mcpkit's first run lives on until it saved its code cache, as a server does:
  // the rows time later starts (`mcpkit (no code cache)`: every start compiles the bundle).
  for (const [impl, server] of Object.entries(servers)) await once(server, overPeers(impl), impl === 'mcpkit' ? SAVE_LINGER_MS : 0);
  await new Promise((resolve) => setTimeout(resolve, SAVE_LINGER_MS));
  for (let i = 0; i < runs; i++) {
    for (const [impl, server] of Object.entries(servers)) times[impl].push(await once(server, overPeers(impl)));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return Object.entries(times).map(([impl, t]) => {
    const sorted = t.map((x) => x.ms).sort((a, b) => a - b);
    return {
      impl,
      median: median(sorted),
      p90: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))],
      cpu: median(t.map((x) => x.cpu)),
      overPeers: overPeers(impl) ? median(t.map((x) => x.overPeers ?? NaN)) : undefined,
      faults: median(t.map((x) => x.faults)),
      faultsOverPeers: overPeers(impl) ? median(t.map((x) => x.faultsOverPeers ?? NaN)) : undefined,
    };
  });
}
