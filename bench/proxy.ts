/**
 * The proxy scenario (`--only=proxy`): the same tools/call (echo) over stateless Streamable HTTP,
 * 32 connections, served
 *  - directly by the mcpkit bench server (the baseline);
 *  - through one mcpkit proxy (`proxy(app, 'far', …)`, the far server reached over Streamable HTTP, and
 *    over stdio as the proxy's child);
 *  - through two mcpkit proxies (proxy → proxy → server, the tool `far_far_echo`);
 *  - and beside them the official SDK 1.x: its server directly, and a proxy written with it (an SDK
 *    McpServer whose tool forwards to an SDK Client connected to the SDK server).
 * Every process of a chain is measured: CPU µs per request is the sum over them (the stdio child's
 * from /proc). Before the load, each chain's answer is compared with the direct server's, so a broken
 * proxy cannot yield a fast figure. Also the unloaded latency: sequential calls on one connection.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import { cpuOf } from './server-cpu';

const SERVERS = join(__dirname, 'servers');
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const callBody = (name: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { text: 'hello' } } });
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

interface Proc {
  child: ChildProcess;
  port: number;
  childPid?: number;
}

interface Chain {
  label: string;
  impl: 'mcpkit' | 'sdk';
  hops: number;
  tool: string;
  start(): Promise<Proc[]>;
}

export interface ProxyRow {
  label: string;
  impl: 'mcpkit' | 'sdk';
  hops: number;
  rps: number;
  best: number;
  runs: number[];
  p50: number;
  p99: number;
  cpu: number;
  /** Median of sequential calls on one connection, µs. */
  seq: number;
  note?: string;
}

function start(script: string, env: Record<string, string>): Promise<Proc> {
  const child = fork(join(SERVERS, script), [], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    child.once('message', (m: { type: string; port: number; childPid?: number }) => {
      if (m.type === 'ready') resolve({ child, port: m.port, childPid: m.childPid });
    });
  });
}

async function stop(procs: Proc[]): Promise<void> {
  for (const p of [...procs].reverse()) {
    p.child.removeAllListeners('exit');
    const exited = new Promise((r) => p.child.once('exit', r));
    p.child.kill('SIGKILL');
    if (p.childPid) {
      try {
        process.kill(p.childPid, 'SIGKILL');
      } catch {
        // already gone with its parent
      }
    }
    await exited;
  }
}

function procCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / USER_HZ) * 1e6; // utime + stime
}

async function totalCpu(procs: Proc[]): Promise<number> {
  let sum = 0;
  for (const p of procs) {
    sum += await cpuOf(p.child);
    if (p.childPid) sum += procCpu(p.childPid);
  }
  return sum;
}

async function call(port: number, tool: string): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: HEADERS, body: callBody(tool) });
  const text = await res.text();
  const json = JSON.parse(
    text.startsWith('{')
      ? text
      : text
          .split('\n')
          .find((l) => l.startsWith('data: {'))!
          .slice(6),
  ) as { result?: unknown };
  if (!json.result) throw new Error(`no result from ${tool}: ${text.slice(0, 300)}`);
  return json.result;
}

/**
 * Sequential calls on one keep-alive connection: the latency of a chain when nothing queues. With
 * node:http, whose own cost per request is a fraction of fetch's, so that the client adds little.
 */
async function sequential(port: number, tool: string, count: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = callBody(tool);
  const once = () =>
    new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: HEADERS, agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end(body);
    });
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const text = await once();
    times.push((performance.now() - t0) * 1000);
    if (!text.includes('"text":"hello"')) throw new Error(`bad answer from ${tool}: ${text.slice(0, 200)}`);
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const FAR = (port: number) => `http://127.0.0.1:${port}/mcp`;

const CHAINS: Chain[] = [
  {
    label: 'mcpkit direct',
    impl: 'mcpkit',
    hops: 0,
    tool: 'echo',
    start: async () => [await start('mcpkit-server.js', { MODE: 'stateless', TOOLS: '1' })],
  },
  {
    label: 'mcpkit 1 hop (HTTP)',
    impl: 'mcpkit',
    hops: 1,
    tool: 'far_echo',
    start: async () => {
      const far = await start('mcpkit-server.js', { MODE: 'stateless', TOOLS: '1' });
      return [far, await start('proxy-server.js', { FAR: FAR(far.port) })];
    },
  },
  {
    label: 'mcpkit 1 hop (stdio)',
    impl: 'mcpkit',
    hops: 1,
    tool: 'far_echo',
    start: async () => [await start('proxy-server.js', { FAR: 'stdio' })],
  },
  {
    label: 'mcpkit 2 hops (HTTP)',
    impl: 'mcpkit',
    hops: 2,
    tool: 'far_far_echo',
    start: async () => {
      const far = await start('mcpkit-server.js', { MODE: 'stateless', TOOLS: '1' });
      const inner = await start('proxy-server.js', { FAR: FAR(far.port) });
      return [far, inner, await start('proxy-server.js', { FAR: FAR(inner.port) })];
    },
  },
  {
    label: 'sdk direct',
    impl: 'sdk',
    hops: 0,
    tool: 'echo',
    start: async () => [await start('sdk-server.js', { MODE: 'stateless', TOOLS: '1' })],
  },
  {
    label: 'sdk 1 hop (HTTP)',
    impl: 'sdk',
    hops: 1,
    tool: 'far_echo',
    start: async () => {
      const far = await start('sdk-server.js', { MODE: 'stateless', TOOLS: '1' });
      return [far, await start('sdk-proxy-server.js', { FAR: FAR(far.port) })];
    },
  },
];

interface Run {
  rps: number;
  p50: number;
  p99: number;
  cpu: number;
  seq: number;
  bad: number;
}

async function measure(chain: Chain, duration: number, quick: boolean, expected: { mcpkit?: unknown; sdk?: unknown }): Promise<Run> {
  const procs = await chain.start();
  try {
    const front = procs[procs.length - 1].port;
    // Correctness: the chain's answer is the direct server's answer (same implementation at the far end).
    const result = await call(front, chain.tool);
    if (chain.hops === 0) expected[chain.impl] ??= result;
    if (!isDeepStrictEqual(result, expected[chain.impl]))
      throw new Error(`${chain.label}: ${JSON.stringify(result)} differs from the direct answer ${JSON.stringify(expected[chain.impl])}`);
    const run = (seconds: number) =>
      autocannon({
        url: FAR(front),
        method: 'POST',
        headers: HEADERS,
        body: callBody(chain.tool),
        connections: 32,
        duration: seconds,
        timeout: 20,
      });
    await run(quick ? 2 : 3); // warm-up
    const seq = await sequential(front, chain.tool, quick ? 300 : 1000);
    const before = await totalCpu(procs);
    const r = await run(duration);
    const cpu = ((await totalCpu(procs)) - before) / Math.max(1, r.requests.total);
    // Still correct after the load.
    if (!isDeepStrictEqual(await call(front, chain.tool), expected[chain.impl]))
      throw new Error(`${chain.label}: wrong answer after the load`);
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpu, seq, bad: r.non2xx + r.errors + r.timeouts };
  } finally {
    await stop(procs);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/** Runs every chain `runs` times, alternating, and prints the table and the overhead per hop. */
export async function proxyBench(options: { runs: number; duration: number; quick: boolean }): Promise<ProxyRow[]> {
  const expected: { mcpkit?: unknown; sdk?: unknown } = {};
  const runs = new Map<Chain, Run[]>(CHAINS.map((c) => [c, []]));
  for (let i = 0; i < options.runs; i++)
    for (const chain of CHAINS) runs.get(chain)!.push(await measure(chain, options.duration, options.quick, expected));
  const rows = CHAINS.map((chain): ProxyRow => {
    const all = runs.get(chain)!;
    const byRps = [...all].sort((a, b) => a.rps - b.rps);
    const mid = byRps[Math.floor((byRps.length - 1) / 2)];
    const bad = all.reduce((n, r) => n + r.bad, 0);
    return {
      label: chain.label,
      impl: chain.impl,
      hops: chain.hops,
      rps: mid.rps,
      best: byRps[byRps.length - 1].rps,
      runs: all.map((r) => r.rps),
      p50: mid.p50,
      p99: mid.p99,
      cpu: median(all.map((r) => r.cpu)),
      seq: median(all.map((r) => r.seq)),
      note: bad ? `${bad} failed` : undefined,
    };
  });
  print(rows, options);
  return rows;
}

function print(rows: ProxyRow[], options: { runs: number; duration: number }): void {
  const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '-');
  console.log(
    `\nproxied tools/call over HTTP (stateless), 32 connections — ${options.runs} run(s) of ${options.duration}s each, alternating, median shown`,
  );
  console.log(
    `${'chain'.padEnd(24)}${'req/s'.padStart(8)}${'best'.padStart(8)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'cpu µs/req'.padStart(12)}${'1-conn µs'.padStart(11)}  overhead per hop vs direct (cpu; 1-conn latency)`,
  );
  for (const r of rows) {
    const direct = rows.find((d) => d.impl === r.impl && d.hops === 0)!;
    const perHop = (x: number, base: number) => (x - base) / r.hops;
    const over =
      r.hops === 0
        ? '(baseline)'
        : `+${f(perHop(r.cpu, direct.cpu))} µs cpu (+${f((perHop(r.cpu, direct.cpu) / direct.cpu) * 100)}%); +${f(perHop(r.seq, direct.seq))} µs (+${f((perHop(r.seq, direct.seq) / direct.seq) * 100)}%)`;
    console.log(
      `${r.label.padEnd(24)}${f(r.rps).padStart(8)}${f(r.best).padStart(8)}${f(r.p50, 2).padStart(8)}${f(r.p99, 2).padStart(8)}${f(r.cpu, 1).padStart(12)}${f(r.seq).padStart(11)}  ${over}${r.note ? `  ${r.note}` : ''}`,
    );
  }
  console.log(
    '(cpu µs/req: CPU time of every process of the chain per request, summed; 1-conn µs: median of sequential calls on one connection.',
  );
  console.log(
    ' Each chain\'s answer is checked equal to its direct server\'s before and after the load. The SDK "1 hop" is a proxy written by hand',
  );
  console.log(' with the SDK 1.x (McpServer tool -> SDK Client), which the SDK does not provide; it forwards tools/call only.)');
}
