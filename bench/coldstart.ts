import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/**
 * Milliseconds from spawning `node ...args` (a stdio server) to its answer to the first tools/call, written
 * at once; and the CPU milliseconds the server's process had used when it wrote that answer
 * (servers/cpu-at-answer.ts, preloaded, reports it on stderr).
 */
function once(
  { args }: Server,
  peersFirst: boolean,
  compileCache: string,
  endGracefully = false,
): Promise<{ ms: number; cpu: number; overPeers?: number; faults: number; faultsOverPeers?: number }> {
  const server = args[args.length - 1];
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, ['-r', join(SERVERS, 'cpu-at-answer.js'), ...args], {
    env: { ...process.env, MODE: 'stdio', TOOLS: '1', PEERS_FIRST: peersFirst ? '1' : '', NODE_COMPILE_CACHE: compileCache },
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
      const figures = {
        ms,
        cpu: Number(cpu[1]),
        overPeers: cpu[2] === undefined ? undefined : Number(cpu[2]),
        faults: Number(faults[1]),
        faultsOverPeers: faults[2] === undefined ? undefined : Number(faults[2]),
      };
      if (!endGracefully) {
        child.kill('SIGKILL');
        resolve(figures);
        return;
      }
      // Its input ended, a stdio server exits on its own, and Node writes the compile cache on the way out.
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve(figures);
      });
      child.stdin.end();
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
}

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
 * moment of the machine hits them alike) and time spawn -> first tools/call answer. `mcpkit` is
 * servers/mcpkit-server.ts on tsc's output (dist/src, as lib/ is built); the SDK 1.x and 2.x servers
 * serve the same tool; `node + peers` answers by hand after loading mcpkit's peers, the floor. Every
 * process runs with Node's compile cache (NODE_COMPILE_CACHE, in a folder of its own for this run), as a
 * project made by `mcpkit init` turns it on: a first run of each fills it, the timed runs read it.
 */
export async function coldStart(runs: number): Promise<ColdStartRow[]> {
  const servers: Record<string, Server> = {
    mcpkit: { args: [join(SERVERS, 'mcpkit-server.js')] },
    'sdk 1.x': { args: [join(SERVERS, 'sdk-server.js')] },
    'sdk 2.x': { args: [join(SERVERS, 'sdk2-server.js')] },
    'bare node': { args: [join(SERVERS, 'bare-server.js')] },
    'node + peers': { args: [join(SERVERS, 'peers-server.js')] },
  };
  // The servers whose CPU time over the peers is taken (the preload loads the peers first).
  const overPeers = (impl: string) => impl === 'mcpkit' || impl === 'node + peers';
  const times: Record<string, Awaited<ReturnType<typeof once>>[]> = Object.fromEntries(Object.keys(servers).map((impl) => [impl, []]));
  const compileCache = mkdtempSync(join(tmpdir(), 'mcpkit-coldstart-'));
  try {
    // Warms the file cache and fills the compile cache.
    for (const [impl, server] of Object.entries(servers)) await once(server, overPeers(impl), compileCache, true);
    for (let i = 0; i < runs; i++) {
      for (const [impl, server] of Object.entries(servers)) times[impl].push(await once(server, overPeers(impl), compileCache));
    }
  } finally {
    rmSync(compileCache, { recursive: true, force: true });
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
