/**
 * What bench/run.ts and its workload modules share: the run's options, the rows measured so far, and
 * the two load generators every timed row goes through (autocannon over HTTP, a pipelined stdio client).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { HEADERS, MODERN_HEADERS, MODERN_META } from './requests';

/** `floor`: the same work done by hand (Koa over HTTP, a newline-delimited JSON loop over stdio). */
export type Impl = 'mcpkit' | 'sdk1' | 'sdk2' | 'floor';
/** How each implementation is named in the rows. */
export const IMPL_NAMES: Record<Impl, string> = { mcpkit: 'mcpkit', sdk1: 'sdk 1.x', sdk2: 'sdk 2.x', floor: 'floor' };

export const QUICK = process.argv.includes('--quick');
/** `--only=a,b`: some workloads only (see run.ts). */
export const ONLY = /--only=([\w,]+)/.exec(process.argv.join(' '))?.[1]?.split(',');
export const wanted = (name: string) => !ONLY || ONLY.includes(name);
export const RUNS = Number(/--runs=(\d+)/.exec(process.argv.join(' '))?.[1] ?? 3);
/** Seconds of each timed HTTP run, after a warm-up of WARMUP seconds. */
export const DURATION = QUICK ? 3 : 8;
const WARMUP = QUICK ? 1 : 3;
export const SERVERS = join(__dirname, 'servers');

export interface Row {
  workload: string;
  impl: string;
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU time (user + system) per request, in microseconds: independent of the load generator. */
  cpu?: number;
  /** The workload's own figure when it is not a rate (heap bytes per session, bytes held). */
  value?: number;
  note?: string;
}

/** Every row measured in this run. */
export const rows: Row[] = [];
export const findRow = (workload: string, impl: string) => rows.find((r) => r.workload === workload && r.impl === impl);

export const CALL_WORKLOAD = 'tools/call over HTTP, 32 connections';
export const LIST_WORKLOAD = 'tools/list of 1000 tools over HTTP, 32 connections';
export const STDIO_CALL = 'tools/call over stdio, 64 in flight';
export const STDIO_FLOOR = 'floor: NDJSON loop';
export const isCall = (r: Record<string, unknown>) => (r.content as { text: string }[])?.[0]?.text === 'hello';
export const isModernCall = (r: Record<string, unknown>) => isCall(r) && r.resultType === 'complete';
export const isList = (r: Record<string, unknown>) => (r.tools as unknown[])?.length === 1000;

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});

/** The server script of an implementation: the floors are two small scripts of their own. */
function serverScript(impl: Impl, stdio: boolean): string {
  if (impl === 'floor') return stdio ? 'stdio-floor-server.js' : 'koa-floor-server.js';
  return { mcpkit: 'mcpkit-server.js', sdk1: 'sdk-server.js', sdk2: 'sdk2-server.js' }[impl];
}

/** Asks a server process over IPC for a figure: `cpu` (µs used so far) or `heap` (bytes after a full GC). */
export function ask(child: ChildProcess, type: 'cpu' | 'heap'): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: { type?: string; micros?: number; heapUsed?: number }) => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      resolve(type === 'cpu' ? m.micros! : m.heapUsed!);
    };
    child.on('message', onMessage);
    child.send({ type });
  });
}
const cpuOf = (child: ChildProcess) => ask(child, 'cpu');

export interface Server {
  child: ChildProcess;
  port: number;
  heap(): Promise<number>;
  stop(): Promise<void>;
}

export function startServer(impl: Impl, env: Record<string, string>, execArgv: string[] = []): Promise<Server> {
  const child = fork(join(env.SERVERS_DIR ?? SERVERS, serverScript(impl, false)), [], {
    env: { ...process.env, ...env },
    execArgv: ['--expose-gc', ...execArgv],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${impl} server exited with ${code}`)));
    child.once('message', (m: { type: string; port: number }) => {
      if (m.type !== 'ready') return;
      resolve({
        child,
        port: m.port,
        heap: () => ask(child, 'heap'),
        stop: async () => {
          child.removeAllListeners('exit');
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGKILL');
          await exited;
        },
      });
    });
  });
}

/** A stdio server process of `impl`, its stdin and stdout piped, IPC for its CPU and heap. */
export function startStdioServer(impl: Impl, env: Record<string, string>): ChildProcess {
  return fork(join(SERVERS, serverScript(impl, true)), [], {
    env: { ...process.env, MODE: 'stdio', ...env },
    execArgv: ['--expose-gc'],
    stdio: ['pipe', 'pipe', 'inherit', 'ipc'],
  });
}

export async function openSession(port: number): Promise<Record<string, string>> {
  const url = `http://127.0.0.1:${port}/mcp`;
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body: INIT });
  const sessionId = res.headers.get('mcp-session-id');
  await res.text();
  if (!sessionId) throw new Error('no session id');
  const headers = { ...HEADERS, 'mcp-session-id': sessionId };
  await (
    await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
  ).text();
  return headers;
}

/** One request, its answer (JSON, or the first event of an SSE stream) checked before a server is loaded. */
async function check(
  port: number,
  headers: Record<string, string>,
  body: string,
  expect: (result: Record<string, unknown>) => boolean,
): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers, body });
  const text = await res.text();
  const json = JSON.parse(
    text.startsWith('{')
      ? text
      : text
          .split('\n')
          .find((l) => l.startsWith('data: {'))!
          .slice(6),
  ) as { result?: Record<string, unknown> };
  if (!json.result || !expect(json.result)) throw new Error(`unexpected answer: ${text.slice(0, 300)}`);
}

/** Extra settings of one HTTP row: server environment, request headers, and the row's name. */
export interface Variant {
  env: Record<string, string>;
  headers: Record<string, string>;
  label: string;
  /** Headers made anew for each request (a DPoP proof, which may be used once). */
  perRequest?: () => Record<string, string>;
}

/**
 * One server of `impl` loaded with the same request over 32 connections for DURATION seconds, after a
 * warm-up: throughput and latency from autocannon, server CPU per request from the server itself.
 */
export async function httpLoad(
  workload: string,
  impl: Impl,
  mode: 'stateless' | 'sessions' | 'modern',
  body: string,
  tools: number,
  expect: (r: Record<string, unknown>) => boolean,
  variant?: Variant,
): Promise<void> {
  // A modern request is stateless whatever the server's sessions option: it runs on the stateless server.
  const server = await startServer(impl, { MODE: mode === 'modern' ? 'stateless' : mode, TOOLS: String(tools), ...variant?.env });
  try {
    const headers =
      mode === 'sessions' ? await openSession(server.port) : { ...(mode === 'modern' ? MODERN_HEADERS : HEADERS), ...variant?.headers };
    const fresh = variant?.perRequest;
    await check(server.port, { ...headers, ...fresh?.() }, body, expect);
    const requests = fresh
      ? [{ setupRequest: (request: autocannon.Request) => ({ ...request, headers: { ...headers, ...fresh() } }) }]
      : undefined;
    const run = (duration: number) =>
      autocannon({
        url: `http://127.0.0.1:${server.port}/mcp`,
        method: 'POST',
        headers,
        body,
        connections: 32,
        duration,
        timeout: 20,
        ...(requests ? { requests } : {}),
      });
    await run(WARMUP); // the server's JIT and the load generator's own
    const cpuBefore = await cpuOf(server.child);
    const result = await run(DURATION);
    const cpu = ((await cpuOf(server.child)) - cpuBefore) / Math.max(1, result.requests.total);
    const bad = result.non2xx + result.errors + result.timeouts;
    rows.push({
      workload,
      impl: variant?.label ?? `${IMPL_NAMES[impl]} (${mode})`,
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      cpu,
      note: bad ? `${bad} failed` : undefined,
    });
  } finally {
    await server.stop();
  }
}

/** The name of a stdio row: the loop, or the implementation (and the era when it is 2026-07-28). */
export function stdioName(impl: Impl, era: 'legacy' | 'modern'): string {
  if (impl === 'floor') return STDIO_FLOOR;
  return era === 'modern' ? `${IMPL_NAMES[impl]} (modern)` : IMPL_NAMES[impl];
}

/**
 * Pipelined tools/call over stdio. The load generator shares the machine with the server, so it is
 * kept cheap and identical for every implementation: requests are pre-built strings written in one
 * batch per turn, and answers are matched by id without a full JSON parse (each is still checked).
 */
export async function stdioLoad(impl: Impl, era: 'legacy' | 'modern' = 'legacy'): Promise<void> {
  const child = startStdioServer(impl, { TOOLS: '1' });
  const total = QUICK ? 30_000 : 200_000;
  const warmup = 5_000;
  // Send times by id, latencies by arrival: typed arrays, so the generator allocates nothing per request.
  const sentAt = new Float64Array(total + warmup + 1);
  const latencies = new Float64Array(total + warmup);
  let measured = 0;
  let buffer = '';
  let outgoing: string[] = [];
  let onAnswer: (id: number) => void = () => undefined;
  const envelope = era === 'modern' ? `,"_meta":${JSON.stringify(MODERN_META)}` : '';
  const request = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}${envelope}}}\n`;
  const send = (id: number, line = request(id)) => {
    sentAt[id] = performance.now();
    outgoing.push(line);
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let start = 0;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n', start)) {
      const line = buffer.slice(start, nl);
      start = nl + 1;
      const at = line.indexOf('"id":');
      if (at < 0) continue;
      const id = Number.parseInt(line.slice(at + 5), 10);
      if (id > 0 && !line.includes('"text":"hello"')) throw new Error(`bad stdio answer: ${line}`);
      if (id > 0) latencies[measured++] = performance.now() - sentAt[id];
      onAnswer(id);
    }
    buffer = buffer.slice(start);
    if (outgoing.length > 0) {
      child.stdin!.write(outgoing.join(''));
      outgoing = [];
    }
  });
  await new Promise<void>((resolve) => {
    onAnswer = () => resolve();
    // A legacy client initializes; a modern one asks server/discover, which pins the connection's era.
    const first =
      era === 'modern'
        ? { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: MODERN_META } }
        : {
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
          };
    send(0, `${JSON.stringify(first)}\n`);
    child.stdin!.write(outgoing.join(''));
    outgoing = [];
  });
  if (era === 'legacy') child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  let nextId = 1;
  const pipeline = (total: number, inflight: number) =>
    new Promise<number>((resolve) => {
      const last = nextId + total;
      let done = 0;
      const started = performance.now();
      onAnswer = () => {
        done++;
        if (nextId < last) send(nextId++);
        if (done === total) resolve((performance.now() - started) / 1e3);
      };
      for (let i = 0; i < Math.min(inflight, total); i++) send(nextId++);
      child.stdin!.write(outgoing.join(''));
      outgoing = [];
    });
  await pipeline(warmup, 64);
  measured = 0;
  const cpuBefore = await cpuOf(child);
  const seconds = await pipeline(total, 64);
  const cpu = ((await cpuOf(child)) - cpuBefore) / total;
  const sorted = Array.from(latencies.subarray(0, measured)).sort((a, b) => a - b);
  rows.push({ workload: STDIO_CALL, impl: stdioName(impl, era), rps: total / seconds, p50: pct(sorted, 0.5), p99: pct(sorted, 0.99), cpu });
  child.kill('SIGKILL');
}

export function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

/** A difference with its sign: +3.2%, -0.4 µs. */
export function signed(n: number, unit: string, digits = 1): string {
  return `${n >= 0 ? '+' : ''}${n.toFixed(digits)}${unit}`;
}

/**
 * Rows measured more than once (`--runs=N`) become one row each: the median run (by throughput) with
 * its latencies and CPU, and the best throughput in the note.
 */
export function collapse(all: Row[]): Row[] {
  const groups = new Map<string, Row[]>();
  for (const r of all) {
    const key = `${r.workload}\u0000${r.impl}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()].map((group) => {
    if (group.length === 1) return group[0];
    const sorted = [...group].sort((a, b) => a.rps - b.rps);
    const median = sorted[Math.floor((sorted.length - 1) / 2)];
    const cpus = group.map((r) => r.cpu ?? NaN).sort((a, b) => a - b);
    const values = group.map((r) => r.value ?? NaN).sort((a, b) => a - b);
    const runs = group.map((r) => r.rps.toFixed(0)).join('/');
    return {
      ...median,
      cpu: cpus[Math.floor((cpus.length - 1) / 2)],
      value: median.value === undefined ? undefined : values[Math.floor((values.length - 1) / 2)],
      note: `median of ${group.length} (runs ${runs}), best ${sorted[sorted.length - 1].rps.toFixed(0)}${median.note ? `; ${median.note}` : ''}`,
    };
  });
}
