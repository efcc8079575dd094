/**
 * mcpkit next to the official TypeScript SDK, same workloads, same run, same machine:
 *  1. tools/call over Streamable HTTP, 32 connections (mcpkit stateless and with sessions; the SDK's
 *     documented stateless pattern and its pattern with sessions);
 *  2. tools/list of a server with 1000 tools over HTTP (whole list in one response on both sides);
 *  3. tools/call over stdio, 64 requests in flight;
 *  4. heap per idle HTTP session, over 2,000 sessions;
 *  5. 10,000 tasks created and completed (tools/call as a task, then tasks/result), with heap after
 *     completion and after the tasks' ttl ran out; 5b. (mcpkit) the same in the 2026-07-28 era, the tasks
 *     extension: tools/call declaring io.modelcontextprotocol/tasks, then tasks/get until completed;
 *  6. cold start over stdio: spawn -> answer to the first tools/call (and a bare Node process as the floor),
 *     mcpkit on the published lib/ (bundled, built when stale) beside tsc's output (dist/src), with each
 *     server's CPU time up to its answer; and
 *     the module load over the peers: CPU time of requiring mcpkit's entry point after its peers, both builds;
 *  1b/3b. the same tools/call in the 2026-07-28 era (stateless, per-request `_meta` envelope, the
 *     Mcp-Method/Mcp-Name headers on HTTP; on stdio the first enveloped request pins the era) beside
 *     the legacy figures; `--only=modern` runs only these and their legacy stateless counterparts,
 *     alternating, `--runs=N` times (default 3), and prints best and median of each;
 *  7. mcpkit's tools/call over stateless HTTP in both eras with a bearer JWT (local keys, as a cached
 *     JWKS), found in the token cache and verified on every request, beside the same without auth; the
 *     extra server CPU per request is printed (`--only=auth --runs=N` alternates N times).
 *  8. (`--only=telemetry`; in the default set, once, only the modes of the floors table) mcpkit's
 *     tools/call over stateless HTTP with telemetry unset, off, propagation only, full with no
 *     OpenTelemetry SDK registered, full with the SDK's providers and no exporter, and full (spans to a
 *     dropping exporter, metrics), the request carrying a traceparent header, alternating, `--runs=N`
 *     times, each printed as a delta over off; `--baseline=<dir>` adds a compiled checkout from before
 *     telemetry (run `tsc` there) as the reference row.
 *  9. (`--only=proxy`, and in the default set with one run) the same tools/call served directly, through
 *     one `app.proxy` hop (far server over HTTP, or over stdio as the proxy's child) and two hops, beside
 *     the SDK 1.x directly and through a proxy written with it; overhead per hop (see proxy.ts).
 * 10. (`--only=sse`, and in the default set) the heap one HTTP session holds through the default
 *     in-memory event store after a tool sent many large events on its request stream, beside the
 *     store's documented per-session byte budget: in ASCII and in CJK text, and 6,000 smaller events.
 * Floors: a final table prints each headline mcpkit figure beside its floor, the same work done by hand
 * in the same run (a Koa + @koa/router server for stateless HTTP, a newline-delimited JSON loop for stdio,
 * a process loading only mcpkit's peers for the start of a stdio server) or the reference it is budgeted
 * against (the legacy era for the 2026-07-28 one, telemetry off for telemetry, a byte budget for memory),
 * the SDK's figure, the ratio and the budget. The floors run in the default set beside the workloads they
 * belong to; `--only=floors` runs just what the table needs, the timed rows alternating `--runs=N` times.
 * Run: `npm run bench` (add `-- --quick` for a shorter run). Prints figures; asserts nothing.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { type ColdStartRow, coldStart } from './coldstart';
import { type ModuleLoadRow, moduleLoad } from './module-load';
import { proxyBench } from './proxy';
import { CALL, HEADERS, MODERN_CALL, MODERN_HEADERS, MODERN_META, TRACEPARENT } from './requests';

/** `floor`: the same work done by hand (Koa over HTTP, a newline-delimited JSON loop over stdio), see floors below. */
type Impl = 'mcpkit' | 'sdk' | 'floor';
const QUICK = process.argv.includes('--quick');
/**
 * `--only=call,list,stdio,memory,sse,tasks,coldstart,auth,modern,telemetry,proxy,floors` runs some workloads only
 * (modern, floors and every telemetry mode run only when named; call and stdio include their modern-era
 * and floor rows).
 */
const ONLY = /--only=([\w,]+)/.exec(process.argv.join(' '))?.[1]?.split(',');
const wanted = (name: string) => !ONLY || ONLY.includes(name);
const RUNS = Number(/--runs=(\d+)/.exec(process.argv.join(' '))?.[1] ?? 3);
const DURATION = QUICK ? 3 : 8;
const SERVERS = join(__dirname, 'servers');
/** The envelope of a client declaring the tasks extension (io.modelcontextprotocol/tasks). */
const TASKS_META = {
  ...MODERN_META,
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};
const SCHEMA_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo_schema', arguments: { text: 'hello' } },
});
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});

interface Row {
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

/** The server script of an implementation: the floors are two small scripts of their own. */
function serverScript(impl: Impl, stdio: boolean): string {
  if (impl === 'floor') return stdio ? 'stdio-floor-server.js' : 'koa-floor-server.js';
  return `${impl}-server.js`;
}

/** Asks a server process over IPC for a figure: `cpu` (µs used so far) or `heap` (bytes after a full GC). */
function ask(child: ChildProcess, type: 'cpu' | 'heap'): Promise<number> {
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
const rows: Row[] = [];

interface Server {
  child: ChildProcess;
  port: number;
  heap(): Promise<number>;
  stop(): Promise<void>;
}

function startServer(impl: Impl, env: Record<string, string>, execArgv: string[] = []): Promise<Server> {
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

async function openSession(port: number): Promise<Record<string, string>> {
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

async function httpLoad(
  workload: string,
  impl: Impl,
  mode: 'stateless' | 'sessions' | 'modern',
  body: string,
  tools: number,
  expect: (r: Record<string, unknown>) => boolean,
  auth?: { env: Record<string, string>; headers: Record<string, string>; label: string },
): Promise<void> {
  // A modern request is stateless whatever the server's sessions option: it runs on the stateless server.
  const server = await startServer(impl, { MODE: mode === 'modern' ? 'stateless' : mode, TOOLS: String(tools), ...auth?.env });
  try {
    const headers =
      mode === 'sessions' ? await openSession(server.port) : { ...(mode === 'modern' ? MODERN_HEADERS : HEADERS), ...auth?.headers };
    await check(server.port, headers, body, expect);
    const run = (duration: number) =>
      autocannon({ url: `http://127.0.0.1:${server.port}/mcp`, method: 'POST', headers, body, connections: 32, duration, timeout: 20 });
    await run(3); // warm-up: the server's JIT and the load generator's own
    const cpuBefore = await cpuOf(server.child);
    const result = await run(DURATION);
    const cpu = ((await cpuOf(server.child)) - cpuBefore) / Math.max(1, result.requests.total);
    const bad = result.non2xx + result.errors + result.timeouts;
    rows.push({
      workload,
      impl: auth?.label ?? `${impl} (${mode})`,
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

const STDIO_CALL = 'tools/call over stdio, 64 in flight';
const STDIO_FLOOR = 'floor: NDJSON loop';

/**
 * Pipelined tools/call over stdio. The load generator shares the machine with the server, so it is
 * kept cheap and identical for both implementations: requests are pre-built strings written in one
 * batch per turn, and answers are matched by id without a full JSON parse (each is still checked).
 */
async function stdioLoad(impl: Impl, era: 'legacy' | 'modern' = 'legacy'): Promise<void> {
  const child = fork(join(SERVERS, serverScript(impl, true)), [], {
    env: { ...process.env, MODE: 'stdio', TOOLS: '1' },
    stdio: ['pipe', 'pipe', 'inherit', 'ipc'],
  });
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
  rows.push({
    workload: STDIO_CALL,
    impl: impl === 'floor' ? STDIO_FLOOR : era === 'modern' ? `${impl} (modern)` : impl,
    rps: total / seconds,
    p50: pct(sorted, 0.5),
    p99: pct(sorted, 0.99),
    cpu,
  });
  child.kill('SIGKILL');
}

/**
 * 10,000 tasks created with tools/call (task-augmented) and collected with tasks/result, 64 flows
 * at a time, over stdio; then the server's heap once they are done and once their ttl ran out.
 */
async function tasksLoad(impl: Impl, era: 'legacy' | 'modern' = 'legacy'): Promise<void> {
  const total = QUICK ? 3_000 : 10_000;
  const ttlMs = 3_000;
  const child = fork(join(SERVERS, `${impl}-server.js`), [], {
    env: { ...process.env, MODE: 'stdio', TOOLS: '1', TASKS: '1' },
    execArgv: ['--expose-gc'],
    stdio: ['pipe', 'pipe', 'inherit', 'ipc'],
  });
  const heap = () => ask(child, 'heap');
  let buffer = '';
  let onMessage: (m: { id?: string | number; result?: Record<string, unknown>; error?: unknown }) => void = () => undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const m = JSON.parse(line) as { id?: string | number; result?: Record<string, unknown> };
      if (m.id !== undefined) onMessage(m);
    }
  });
  const send = (message: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  await new Promise<void>((resolve) => {
    onMessage = () => resolve();
    // A modern client's server/discover pins the connection's era (as in stdioLoad).
    if (era === 'modern') send({ id: 'init', method: 'server/discover', params: { _meta: TASKS_META } });
    else
      send({
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
      });
  });
  if (era === 'legacy') send({ method: 'notifications/initialized' });
  const before = await heap();
  const seconds = await new Promise<number>((resolve, reject) => {
    let started = 0;
    let done = 0;
    const t0 = performance.now();
    const startFlow = () => {
      const i = started++;
      if (era === 'modern')
        send({ id: `c${i}`, method: 'tools/call', params: { name: 'work_task', arguments: { text: String(i) }, _meta: TASKS_META } });
      else send({ id: `c${i}`, method: 'tools/call', params: { name: 'work', arguments: { text: String(i) }, task: { ttl: ttlMs } } });
    };
    onMessage = (m) => {
      const id = String(m.id);
      if (id.startsWith('c')) {
        const taskId =
          era === 'modern'
            ? m.result?.resultType === 'task'
              ? (m.result.taskId as string)
              : undefined
            : (m.result?.task as { taskId?: string } | undefined)?.taskId;
        if (!taskId) return reject(new Error(`${impl}: no task in ${JSON.stringify(m)}`));
        if (era === 'modern') send({ id: `r${id.slice(1)}`, method: 'tasks/get', params: { taskId, _meta: TASKS_META } });
        else send({ id: `r${id.slice(1)}`, method: 'tasks/result', params: { taskId } });
        return;
      }
      // tasks/get until the task is done: its result comes inline.
      if (era === 'modern' && (m.result?.status === 'working' || m.result?.status === 'input_required')) {
        send({ id, method: 'tasks/get', params: { taskId: m.result.taskId, _meta: TASKS_META } });
        return;
      }
      const text = (
        (era === 'modern' ? (m.result?.result as Record<string, unknown> | undefined)?.content : m.result?.content) as
          { text: string }[] | undefined
      )?.[0]?.text;
      if (text !== `done ${id.slice(1)}`) return reject(new Error(`${impl}: bad task result ${JSON.stringify(m)}`));
      done++;
      if (started < total) startFlow();
      if (done === total) resolve((performance.now() - t0) / 1000);
    };
    for (let i = 0; i < 64; i++) startFlow();
  });
  const afterDone = await heap();
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  // A modern client cannot ask for a ttl (the server's default, minutes, applies): heap when done only.
  if (era === 'legacy') await new Promise((r) => setTimeout(r, ttlMs + 2_000));
  const afterTtl = era === 'legacy' ? await heap() : undefined;
  rows.push({
    workload:
      era === 'modern' ? `${total} tasks (modern): tools/call + tasks/get, stdio` : `${total} tasks: tools/call + tasks/result, stdio`,
    impl: era === 'modern' ? `${impl} (modern)` : impl,
    rps: total / seconds,
    p50: NaN,
    p99: NaN,
    note:
      afterTtl === undefined
        ? `heap +${mb(afterDone - before)} when done`
        : `heap +${mb(afterDone - before)} when done, +${mb(afterTtl - before)} after ttl`,
  });
  child.kill('SIGKILL');
}

const MEMORY_WORKLOAD = 'heap per idle HTTP session (2,000 sessions)';

async function sessionMemory(impl: Impl): Promise<void> {
  const server = await startServer(impl, { MODE: 'sessions', TOOLS: '1' });
  try {
    await openSession(server.port); // warm every code path once
    const before = await server.heap();
    const count = 2_000;
    for (let i = 0; i < count; i += 20) await Promise.all(Array.from({ length: 20 }, () => openSession(server.port)));
    const after = await server.heap();
    rows.push({
      workload: MEMORY_WORKLOAD,
      impl,
      rps: NaN,
      p50: NaN,
      p99: NaN,
      value: (after - before) / count,
      note: `${((after - before) / count / 1024).toFixed(2)} KB/session`,
    });
  } finally {
    await server.stop();
  }
}

const SSE_WORKLOAD = 'SSE events kept for resumption, one session';
/** InMemoryEventStore's documented default maxBytesPerSession (docs/guide/deployment.md: 4 MiB per session). */
const SSE_BUDGET_BYTES = 4 * 1024 * 1024;
/**
 * What is sent: `calls` tools/call of the flood tool, one after the other (each its own request stream),
 * each sending `count` log messages of `size` characters `char`.
 */
const SSE_CASES = {
  ascii: { label: 'ASCII, 64 Ki chars', short: 'ASCII', char: 'x', calls: 1, count: 160, size: 64 * 1024 },
  cjk: { label: 'CJK, 64 Ki chars', short: 'CJK', char: '\u6f22', calls: 1, count: 160, size: 64 * 1024 },
  streams: { label: '6 streams of 700 chars', short: '6x1000 small', char: 'x', calls: 6, count: 1_000, size: 700 },
} as const;

/**
 * The heap one session holds through the default in-memory event store: a tool sends many large log
 * messages on its request stream (160 of 64 Ki characters: 2.5 times the per-session budget), the
 * client reads them all, and the server's heap after a full GC is compared with the heap once the
 * session is deleted (after a full GC too). ASCII text takes one byte per character in V8's heap, CJK
 * text (any character above U+00FF) two; the third case sends 6,000 smaller events over six request
 * streams, where what an event costs beyond its text counts.
 */
async function sseRetention(which: keyof typeof SSE_CASES): Promise<void> {
  // V8 drops the bytecode of functions left unused over a few full GCs: without that, what the measuring
  // GCs free of the server's code would count as the session's (+-0.1 MB from run to run).
  const server = await startServer('mcpkit', { MODE: 'sessions', TOOLS: '1', FLOOD: '1' }, ['--no-flush-bytecode']);
  try {
    const { label, char, calls, count, size } = SSE_CASES[which];
    const url = `http://127.0.0.1:${server.port}/mcp`;
    const end = async (headers: Record<string, string>) => (await fetch(url, { method: 'DELETE', headers })).text();
    const flood = async (headers: Record<string, string>, count: number, size: number) => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'flood', arguments: { count, size, char } },
      });
      const res = await fetch(url, { method: 'POST', headers, body });
      const answer = await res.text();
      const events = answer.split('\nevent: message\n').length - 1;
      if (!answer.includes(`flooded ${count}`) || events !== count + 1)
        throw new Error(`flood: ${events} events, unexpected answer: ${answer.slice(0, 300)}`);
    };
    // Every code path once (the session's end too), in a session of its own.
    const warm = await openSession(server.port);
    await flood(warm, 8, 1024);
    await end(warm);
    // Three sessions one after the other, the median kept: a GC now and then leaves some 0.1 to 0.3 MB
    // that is not the session's in one measurement.
    const helds: number[] = [];
    const growths: number[] = [];
    for (let i = 0; i < 3; i++) {
      const headers = await openSession(server.port);
      const before = await server.heap();
      for (let j = 0; j < calls; j++) await flood(headers, count, size);
      const after = await server.heap();
      // What the session holds is what its end frees (its events go with it): the heap's growth since
      // `before` also counts code and buffers the server keeps whatever the session.
      await end(headers);
      helds.push(after - (await server.heap()));
      growths.push(after - before);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1];
    const held = median(helds);
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MB`;
    rows.push({
      workload: SSE_WORKLOAD,
      impl: `mcpkit, ${label}`,
      rps: NaN,
      p50: NaN,
      p99: NaN,
      value: held,
      note: `${mb(held)} freed by the session's end (heap +${mb(median(growths))}) after ${calls * count} events, ${mb(calls * count * size)} of characters; budget ${mb(SSE_BUDGET_BYTES)}`,
    });
  } finally {
    await server.stop();
  }
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

function ratioLine(workload: string, mine: string, theirs: string): string {
  const a = rows.find((r) => r.workload === workload && r.impl === mine);
  const b = rows.find((r) => r.workload === workload && r.impl === theirs);
  if (!a || !b) return '';
  const cpu = a.cpu && b.cpu ? `, server CPU per request ${(b.cpu / a.cpu).toFixed(1)}x less` : '';
  return `  ${workload}: ${mine} vs ${theirs}: ${(a.rps / b.rps).toFixed(1)}x the throughput${cpu}`;
}

/** Runs the load generator for a few seconds against a trivial server, so its own warm-up costs no workload. */
async function warmLoadGenerator(): Promise<void> {
  const server = createServer((_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  await autocannon({ url: `http://127.0.0.1:${port}/`, method: 'POST', headers: HEADERS, body: CALL, connections: 32, duration: 3 });
  await new Promise((r) => server.close(r));
}

const AUTH_WORKLOAD = 'tools/call over HTTP, bearer JWT vs none';
const AUTH_LABELS = { none: 'no auth', ignored: 'no auth, token sent', cached: 'JWT (cache warm)', uncached: 'JWT (no cache)' } as const;

/**
 * mcpkit's tools/call in both eras with no auth, with the token sent to a server that ignores it (the
 * HTTP cost of the header alone), with an RS256 JWT verified once and then found in the
 * token cache (the default), and with the cache off (verified on every request), alternating `runs`
 * times. Local key set: the JWKS-cached path.
 */
async function authLoad(runs: number): Promise<void> {
  const issuer = 'https://as.bench.example';
  const resource = 'https://mcp.bench.example/mcp';
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256' };
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ sub: 'bench', scope: 'tools', client_id: 'bench' })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench', typ: 'at+jwt' })
    .setIssuer(issuer)
    .setAudience(resource)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(privateKey);
  const jwt = { AUTH_JWKS: JSON.stringify({ keys: [jwk] }), AUTH_ISSUER: issuer, AUTH_RESOURCE: resource };
  const bearer = { authorization: `Bearer ${token}` };
  for (let run = 0; run < runs; run++) {
    for (const [mode, body, expect, era] of [
      ['stateless', CALL, isCall, '2025-11-25'],
      ['modern', MODERN_CALL, isModernCall, '2026-07-28'],
    ] as const) {
      await httpLoad(AUTH_WORKLOAD, 'mcpkit', mode, body, 1, expect, { env: {}, headers: {}, label: `${era}, ${AUTH_LABELS.none}` });
      // The same bytes on the wire, unread: what carrying an 800-byte header costs HTTP itself.
      await httpLoad(AUTH_WORKLOAD, 'mcpkit', mode, body, 1, expect, { env: {}, headers: bearer, label: `${era}, ${AUTH_LABELS.ignored}` });
      await httpLoad(AUTH_WORKLOAD, 'mcpkit', mode, body, 1, expect, { env: jwt, headers: bearer, label: `${era}, ${AUTH_LABELS.cached}` });
      await httpLoad(AUTH_WORKLOAD, 'mcpkit', mode, body, 1, expect, {
        env: { ...jwt, AUTH_CACHE: '0' },
        headers: bearer,
        label: `${era}, ${AUTH_LABELS.uncached}`,
      });
    }
  }
}

/** The extra server CPU of an authenticated call over the same call without auth, per era. */
function authOverheadLines(): string[] {
  const lines: string[] = [];
  for (const era of ['2025-11-25', '2026-07-28']) {
    const row = (label: string) => rows.find((r) => r.workload === AUTH_WORKLOAD && r.impl === `${era}, ${label}`);
    const none = row(AUTH_LABELS.none);
    if (!none?.cpu) continue;
    for (const label of [AUTH_LABELS.ignored, AUTH_LABELS.cached, AUTH_LABELS.uncached]) {
      const r = row(label);
      if (!r?.cpu) continue;
      lines.push(
        `  ${AUTH_WORKLOAD}, ${era}: ${label} adds ${(r.cpu - none.cpu).toFixed(1)} µs of server CPU per request (${none.cpu.toFixed(1)} -> ${r.cpu.toFixed(1)} µs), throughput ${((r.rps / none.rps - 1) * 100).toFixed(1)}%`,
      );
    }
  }
  return lines;
}

const TELEMETRY_WORKLOAD = 'tools/call over HTTP (stateless), telemetry';
/**
 * The telemetry modes measured: the server's TELEMETRY (and for full, TELEMETRY_SDK: what stands behind
 * @opentelemetry/api, see mcpkit-server.ts). `floor` marks the three of the floors table, measured in
 * the default run too.
 */
const TELEMETRY_MODES: readonly { label: string; env: Record<string, string>; floor?: boolean }[] = [
  { label: 'unset', env: {} },
  { label: 'off', env: { TELEMETRY: 'off' }, floor: true },
  { label: 'propagation', env: { TELEMETRY: 'propagation' } },
  { label: 'full, no SDK', env: { TELEMETRY: 'full', TELEMETRY_SDK: 'none' }, floor: true },
  { label: 'full, SDK no exporter', env: { TELEMETRY: 'full', TELEMETRY_SDK: 'bare' }, floor: true },
  { label: 'full', env: { TELEMETRY: 'full' } },
];
/** `--baseline=<dir>`: a compiled checkout from before telemetry (its dist/bench/servers), measured beside the modes as "baseline". */
const BASELINE = /--baseline=(\S+)/.exec(process.argv.join(' '))?.[1];

/**
 * The floor of the SDK row: the Koa floor answering the same request, by hand, without and with the
 * OpenTelemetry SDK span and histogram point mcpkit's 'full' telemetry makes (servers/koa-floor-server.ts):
 * what the SDK itself costs a call over HTTP, whoever calls it.
 */
const KOA_TRACED_FLOORS: readonly { env: Record<string, string>; headers: Record<string, string>; label: string }[] = [
  { env: {}, headers: TRACEPARENT, label: 'floor: Koa by hand' },
  { env: { TELEMETRY_SDK: 'bare' }, headers: TRACEPARENT, label: 'floor: Koa by hand, SDK span' },
];

/**
 * The same stateless tools/call with each telemetry mode, alternating, `runs` times (`floorsOnly`: the
 * three modes of the floors table only), and the Koa floor without and with the SDK's span.
 */
async function telemetryLoad(runs: number, floorsOnly = false): Promise<void> {
  for (let i = 0; i < runs; i++) {
    for (const floor of KOA_TRACED_FLOORS) await httpLoad(TELEMETRY_WORKLOAD, 'floor', 'stateless', CALL, 1, isCall, floor);
    if (BASELINE && !floorsOnly)
      await httpLoad(TELEMETRY_WORKLOAD, 'mcpkit', 'stateless', CALL, 1, isCall, {
        env: { SERVERS_DIR: join(BASELINE, 'dist', 'bench', 'servers') },
        headers: TRACEPARENT,
        label: 'mcpkit, baseline',
      });
    for (const mode of TELEMETRY_MODES) {
      if (floorsOnly && !mode.floor) continue;
      await httpLoad(TELEMETRY_WORKLOAD, 'mcpkit', 'stateless', CALL, 1, isCall, {
        env: mode.env,
        headers: TRACEPARENT,
        label: `mcpkit, ${mode.label}`,
      });
    }
  }
}

/** Each mode beside telemetry off (or the baseline checkout): throughput, and server CPU per request in % and in µs. */
function telemetryLines(): string[] {
  const row = (mode: string) => rows.find((r) => r.workload === TELEMETRY_WORKLOAD && r.impl === `mcpkit, ${mode}`);
  const reference = BASELINE ? 'baseline' : 'off';
  const base = row(reference);
  if (!base) return [];
  return TELEMETRY_MODES.filter((m) => m.label !== reference).flatMap(({ label }) => {
    const r = row(label);
    if (!r) return [];
    const cpu =
      r.cpu && base.cpu
        ? `, server CPU per request ${signed((r.cpu / base.cpu - 1) * 100, '%')} (${signed(r.cpu - base.cpu, ' µs')}: ${base.cpu.toFixed(1)} -> ${r.cpu.toFixed(1)} µs)`
        : '';
    return [`  telemetry ${label} vs ${reference}: throughput ${signed((r.rps / base.rps - 1) * 100, '%')}${cpu}`];
  });
}

/** A difference with its sign: +3.2%, -0.4 µs. */
function signed(n: number, unit: string, digits = 1): string {
  return `${n >= 0 ? '+' : ''}${n.toFixed(digits)}${unit}`;
}

/** True when the official SDK 2.x server package is installed (it is the one that serves 2026-07-28). */
function sdk2ServerInstalled(): boolean {
  try {
    require.resolve('@modelcontextprotocol/server');
    return true;
  } catch {
    return false;
  }
}

/**
 * Rows measured more than once (`--only=modern`, `--runs=N`) become one row each: the median run (by
 * throughput) with its latencies and CPU, and the best throughput in the note.
 */
function collapse(all: Row[]): Row[] {
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

/** The modern era's cost beside the legacy era's on the same server and workload. */
function eraLine(workload: string, modern: string, legacy: string): string {
  const a = rows.find((r) => r.workload === workload && r.impl === modern);
  const b = rows.find((r) => r.workload === workload && r.impl === legacy);
  if (!a || !b) return '';
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
  const cpu = a.cpu && b.cpu ? `, server CPU per request ${pct(a.cpu / b.cpu - 1)}` : '';
  return `  ${workload}: ${modern} vs ${legacy}: throughput ${pct(a.rps / b.rps - 1)}${cpu}`;
}

const CALL_WORKLOAD = 'tools/call over HTTP, 32 connections';
const LIST_WORKLOAD = 'tools/list of 1000 tools over HTTP, 32 connections';
const isCall = (r: Record<string, unknown>) => (r.content as { text: string }[])?.[0]?.text === 'hello';
const isModernCall = (r: Record<string, unknown>) => isCall(r) && r.resultType === 'complete';

/** `--only=modern`: both eras of mcpkit (and the SDK's legacy stateless), alternating, RUNS times. */
async function modernComparison(): Promise<void> {
  for (let i = 0; i < RUNS; i++) {
    await httpLoad(CALL_WORKLOAD, 'mcpkit', 'stateless', CALL, 1, isCall);
    await httpLoad(CALL_WORKLOAD, 'mcpkit', 'modern', MODERN_CALL, 1, isModernCall);
    await httpLoad(CALL_WORKLOAD, 'sdk', 'stateless', CALL, 1, isCall);
    await stdioLoad('mcpkit', 'legacy');
    await stdioLoad('mcpkit', 'modern');
    await stdioLoad('sdk', 'legacy');
  }
}

/** The floor of the stateless HTTP tools/call: the same request answered by hand with Koa (servers/koa-floor-server.ts). */
const KOA_FLOOR = { env: {}, headers: {}, label: 'floor: Koa by hand' };
/**
 * The same floor answering the 2026-07-28 call (its headers checked against its body, `resultType` and
 * serverInfo in the result): what that revision costs any server on Node, beside what it costs mcpkit.
 */
const KOA_MODERN_FLOOR = { env: {}, headers: {}, label: 'floor: Koa by hand, 2026-07-28' };

/**
 * `--only=floors`: the workloads of the floors table, each floor next to mcpkit (and the SDK where it
 * has the workload), the timed ones alternating `--runs=N` times.
 */
async function floorsComparison(): Promise<void> {
  for (let i = 0; i < RUNS; i++) {
    await httpLoad(CALL_WORKLOAD, 'floor', 'stateless', CALL, 1, isCall, KOA_FLOOR);
    await httpLoad(CALL_WORKLOAD, 'floor', 'modern', MODERN_CALL, 1, isModernCall, KOA_MODERN_FLOOR);
    await httpLoad(CALL_WORKLOAD, 'mcpkit', 'stateless', CALL, 1, isCall);
    await httpLoad(CALL_WORKLOAD, 'mcpkit', 'modern', MODERN_CALL, 1, isModernCall);
    await httpLoad(CALL_WORKLOAD, 'sdk', 'stateless', CALL, 1, isCall);
    await stdioLoad('floor');
    await stdioLoad('mcpkit');
    await stdioLoad('sdk');
    await telemetryLoad(1, true);
  }
  await sessionMemory('mcpkit');
  await sessionMemory('sdk');
  for (const which of ['ascii', 'cjk', 'streams'] as const) await sseRetention(which);
}

async function main(): Promise<void> {
  if (wanted('call') || wanted('list') || ONLY?.some((o) => ['auth', 'modern', 'telemetry', 'proxy', 'floors'].includes(o)))
    await warmLoadGenerator();
  const isList = (r: Record<string, unknown>) => (r.tools as unknown[])?.length === 1000;
  const call = CALL_WORKLOAD;
  const list = LIST_WORKLOAD;
  if (ONLY?.includes('modern')) await modernComparison();
  else {
    for (const impl of ['mcpkit', 'sdk'] as const) {
      // The floor first, next to mcpkit's stateless run (the floors table compares the two).
      if (impl === 'mcpkit' && wanted('call')) await httpLoad(call, 'floor', 'stateless', CALL, 1, isCall, KOA_FLOOR);
      for (const mode of ['stateless', 'sessions'] as const) {
        if (wanted('call')) await httpLoad(call, impl, mode, CALL, 1, isCall);
        if (wanted('list')) await httpLoad(list, impl, mode, LIST, 1000, isList);
      }
      // The 2026-07-28 era: mcpkit only (the 1.x SDK installed here serves the legacy era only).
      if (impl === 'mcpkit' && wanted('call')) await httpLoad(call, impl, 'modern', MODERN_CALL, 1, isModernCall);
      // The same call of a tool registered at runtime (JSON Schema checked by Ajv) beside the decorated one.
      if (impl === 'mcpkit' && wanted('call'))
        await httpLoad(call, impl, 'stateless', SCHEMA_CALL, 1, isCall, {
          env: { RUNTIME_TOOL: '1' },
          headers: {},
          label: 'mcpkit, addTool',
        });
      if (impl === 'mcpkit' && wanted('stdio')) await stdioLoad('floor');
      if (wanted('stdio')) await stdioLoad(impl);
      if (impl === 'mcpkit' && wanted('stdio')) await stdioLoad(impl, 'modern');
      if (wanted('memory')) await sessionMemory(impl);
      // The event store's byte budget: mcpkit only (the SDK keeps no events unless given a store).
      if (impl === 'mcpkit' && wanted('sse')) for (const which of ['ascii', 'cjk', 'streams'] as const) await sseRetention(which);
      if (wanted('tasks')) await tasksLoad(impl);
      // The 2026-07-28 tasks extension: mcpkit only (the 1.x SDK does not serve that era).
      if (impl === 'mcpkit' && wanted('tasks')) await tasksLoad(impl, 'modern');
    }
  }
  if (ONLY?.includes('floors')) await floorsComparison();
  // mcpkit alone (the SDK verifies no tokens itself); `--runs=N` applies when auth is asked for by name.
  if (wanted('auth')) await authLoad(ONLY?.includes('auth') ? RUNS : 1);
  // Not part of the comparison with the SDK. By name: every mode, `--runs=N` times; in the default
  // set: once, the three modes of the floors table.
  if (ONLY?.includes('telemetry')) await telemetryLoad(RUNS);
  else if (!ONLY) await telemetryLoad(1, true);
  rows.splice(0, rows.length, ...collapse(rows));
  rows.sort((a, b) => a.workload.localeCompare(b.workload));

  const fmt = (n: number | undefined, digits = 0) => (n === undefined || !Number.isFinite(n) ? '-' : n === 0 ? '<1' : n.toFixed(digits));
  // `--only=proxy` (or coldstart) alone measures nothing for this table: it prints its own.
  if (rows.length > 0) printTable(rows, fmt);
  const cold = wanted('coldstart') || ONLY?.includes('floors') ? await printColdStart() : undefined;
  const load = cold ? printModuleLoad() : undefined;
  // `--runs=N` applies when proxy is asked for by name; in the default set it runs once (6 chains).
  if (wanted('proxy')) await proxyBench({ runs: ONLY?.includes('proxy') ? RUNS : 1, duration: DURATION, quick: QUICK });
  printFloors(floorLines(cold, load));
}

function printTable(rows: Row[], fmt: (n: number | undefined, digits?: number) => string): void {
  const call = CALL_WORKLOAD;
  const list = LIST_WORKLOAD;
  console.log(`\nmcpkit vs @modelcontextprotocol/sdk — node ${process.version}, ${DURATION}s per HTTP run\n`);
  console.log(
    `${'workload'.padEnd(52)}${'implementation'.padEnd(32)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'cpu µs/req'.padStart(12)}  note`,
  );
  for (const r of rows) {
    console.log(
      `${r.workload.padEnd(52)}${r.impl.padEnd(32)}${fmt(r.rps).padStart(10)}${fmt(r.p50, 2).padStart(9)}${fmt(r.p99, 2).padStart(9)}${fmt(r.cpu, 1).padStart(12)}  ${r.note ?? ''}`,
    );
  }
  console.log('(HTTP latencies come from autocannon at 1 ms resolution; "cpu µs/req" is the server process\'s own CPU time per request.)');
  if (rows.some((r) => r.impl.includes('(modern)'))) {
    console.log(
      sdk2ServerInstalled()
        ? '("(modern)" rows: MCP 2026-07-28, stateless, per-request _meta; the SDK rows are the 1.x SDK, which serves the legacy era only.)'
        : '("(modern)" rows: MCP 2026-07-28, stateless, per-request _meta. The official SDK 2.x server package is not installed:\n the SDK rows are the 1.x SDK (@modelcontextprotocol/sdk) serving the legacy 2025-11-25 era on the same workload.)',
    );
  }
  console.log('\nratios:');
  for (const line of [
    ratioLine(call, 'mcpkit (stateless)', 'sdk (stateless)'),
    ratioLine(call, 'mcpkit (modern)', 'sdk (stateless)'),
    ratioLine(call, 'mcpkit (sessions)', 'sdk (sessions)'),
    ratioLine(list, 'mcpkit (stateless)', 'sdk (stateless)'),
    ratioLine(list, 'mcpkit (sessions)', 'sdk (sessions)'),
    ratioLine(STDIO_CALL, 'mcpkit', 'sdk'),
    ratioLine(STDIO_CALL, 'mcpkit (modern)', 'sdk'),
    ratioLine(`${QUICK ? 3_000 : 10_000} tasks: tools/call + tasks/result, stdio`, 'mcpkit', 'sdk'),
    ...authOverheadLines(),
    ...telemetryLines(),
  ])
    if (line) console.log(line);
  const eras = [eraLine(call, 'mcpkit (modern)', 'mcpkit (stateless)'), eraLine(STDIO_CALL, 'mcpkit (modern)', 'mcpkit')].filter(Boolean);
  if (eras.length > 0) console.log(`\n2026-07-28 beside 2025-11-25 (legacy stateless), same server:\n${eras.join('\n')}`);
}

async function printColdStart(): Promise<ColdStartRow[]> {
  const runs = QUICK ? 10 : 30;
  const figures = await coldStart(runs);
  const bare = figures.find((f) => f.impl === 'bare node')!;
  console.log(`\ncold start over stdio, spawn -> first tools/call answer (${runs} runs each, alternating):`);
  const peers = figures.find((f) => f.impl === 'node + peers')!;
  for (const f of figures) {
    const over =
      f === bare
        ? ''
        : `  (+${(f.median - bare.median).toFixed(0)} ms over bare node${f.impl.startsWith('mcpkit') ? `, +${(f.median - peers.median).toFixed(0)} ms over node + peers` : ''})`;
    console.log(
      `  ${f.impl.padEnd(22)} median ${f.median.toFixed(0).padStart(4)} ms   p90 ${f.p90.toFixed(0).padStart(4)} ms   CPU ${f.cpu.toFixed(0).padStart(4)} ms` +
        `${f.overPeers === undefined ? '' : ` (${f.overPeers.toFixed(0)} after the peers)`}` +
        `   page faults ${f.faults}${f.faultsOverPeers === undefined ? '' : ` (${f.faultsOverPeers} after)`}${over}`,
    );
  }
  console.log(
    [
      '  ("node + peers" loads reflect-metadata, class-validator, class-transformer and tsyringe, which any such app imports itself;',
      '   "mcpkit" runs on the published lib/ (bundled) with the V8 code cache its first run saved (lib/.cache/);',
      '   "mcpkit (no code cache)" compiles the bundle at every start (MCPKIT_CODE_CACHE=0), as a first start does;',
      '   "mcpkit (tsc)" on tsc\'s output, a file per module;',
      "   CPU: the server process's own CPU time when it wrote the answer, steadier than the wall clock on a busy machine;",
      '   "after the peers": from the peers loaded (by a preload, servers/cpu-at-answer.ts) to the answer, steadier still;',
      '   page faults: minor ones, memory touched for the first time, which a VM pays microseconds each for.)',
    ].join('\n'),
  );
  return figures;
}

function printModuleLoad(): ModuleLoadRow[] {
  const runs = QUICK ? 9 : 21;
  const figures = moduleLoad(runs);
  console.log(`
module load over the peers: require('mcpkit') after the peers, CPU ms (${runs} runs each, alternating):`);
  for (const f of figures)
    console.log(
      `  ${f.build.padEnd(14)} median ${f.cpu.toFixed(1).padStart(5)} ms CPU, ${f.wall.toFixed(1).padStart(5)} ms wall, ${f.files} files of mcpkit read`,
    );
  return figures;
}

/** One row of the floors table; figures already formatted. */
interface FloorLine {
  row: string;
  floor: string;
  sdk: string;
  mcpkit: string;
  ratio: string;
  budget: string;
  within: boolean;
}

/**
 * The floors table: each mcpkit figure beside its floor (the same work done by hand, or the reference
 * it is budgeted against) and the SDK's, measured in this run; a row whose figures were not measured
 * (see --only) is left out. Budgets are targets for the code, printed, never asserted.
 */
function floorLines(cold: ColdStartRow[] | undefined, load: ModuleLoadRow[] | undefined): FloorLine[] {
  const find = (workload: string, impl: string) => rows.find((r) => r.workload === workload && r.impl === impl);
  const n = (x: number | undefined, digits = 1) => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(digits));
  const lines: FloorLine[] = [];

  const koa = find(CALL_WORKLOAD, KOA_FLOOR.label);
  const legacy = find(CALL_WORKLOAD, 'mcpkit (stateless)');
  if (koa?.cpu && legacy?.cpu) {
    const ratio = legacy.cpu / koa.cpu;
    const sdk = find(CALL_WORKLOAD, 'sdk (stateless)')?.cpu;
    lines.push({
      row: 'stateless HTTP tools/call, server CPU µs/req',
      floor: `${n(koa.cpu)} Koa`,
      sdk: n(sdk),
      mcpkit: n(legacy.cpu),
      ratio: `${ratio.toFixed(2)}x`,
      budget: '<= 1.10x',
      within: ratio <= 1.1,
    });
  }

  const loop = find(STDIO_CALL, STDIO_FLOOR);
  const stdio = find(STDIO_CALL, 'mcpkit');
  if (loop && stdio) {
    const share = (stdio.rps / loop.rps) * 100;
    lines.push({
      row: 'stdio tools/call, 64 in flight, msg/s',
      floor: `${n(loop.rps, 0)} loop`,
      sdk: n(find(STDIO_CALL, 'sdk')?.rps, 0),
      mcpkit: n(stdio.rps, 0),
      ratio: `${share.toFixed(0)}%`,
      budget: '>= 80%',
      within: share >= 80,
    });
  }

  const session = find(MEMORY_WORKLOAD, 'mcpkit')?.value;
  if (session !== undefined) {
    const kb = session / 1024;
    const sdk = find(MEMORY_WORKLOAD, 'sdk')?.value;
    lines.push({
      row: '2,000 HTTP sessions held, heap KB/session',
      floor: '-',
      sdk: n(sdk === undefined ? undefined : sdk / 1024, 2),
      mcpkit: n(kb, 2),
      ratio: `${(kb / 2).toFixed(2)}x`,
      budget: '<= 2 KB',
      within: kb <= 2,
    });
  }

  for (const { label, short } of Object.values(SSE_CASES)) {
    const held = find(SSE_WORKLOAD, `mcpkit, ${label}`)?.value;
    if (held === undefined) continue;
    lines.push({
      row: `SSE events held by 1 session, ${short}, MB`,
      floor: '-',
      sdk: '-',
      mcpkit: n(held / 1024 / 1024, 2),
      ratio: `${(held / SSE_BUDGET_BYTES).toFixed(2)}x`,
      budget: `<= ${n(SSE_BUDGET_BYTES / 1024 / 1024)} MB`,
      within: held <= SSE_BUDGET_BYTES,
    });
  }

  const peers = cold?.find((f) => f.impl === 'node + peers');
  const mcpkitStart = cold?.find((f) => f.impl === 'mcpkit');
  if (peers && mcpkitStart) {
    const extra = mcpkitStart.median - peers.median;
    lines.push({
      row: 'stdio server start over its peers, ms (median)',
      floor: `${n(peers.median, 0)} peers`,
      sdk: n(cold?.find((f) => f.impl === 'sdk')?.median, 0),
      mcpkit: n(mcpkitStart.median, 0),
      ratio: signed(extra, ' ms', 0),
      budget: '<= +15 ms',
      within: extra <= 15,
    });
  }

  const bundle = load?.find((l) => l.build === 'lib (bundle)');
  if (bundle) {
    lines.push({
      row: 'module load over its peers, CPU ms (median)',
      floor: `${n(load?.find((l) => l.build === 'tsc output')?.cpu, 0)} tsc`,
      sdk: '-',
      mcpkit: n(bundle.cpu),
      ratio: signed(bundle.cpu, ' ms'),
      budget: '<= +15 ms',
      within: bundle.cpu <= 15,
    });
  }

  const modern = find(CALL_WORKLOAD, 'mcpkit (modern)');
  if (modern?.cpu && legacy?.cpu) {
    const ratio = modern.cpu / legacy.cpu;
    const koaModern = find(CALL_WORKLOAD, KOA_MODERN_FLOOR.label)?.cpu;
    lines.push({
      row: '2026-07-28 vs 2025-11-25 stateless call, CPU µs/req',
      floor: `${n(legacy.cpu)} legacy${koa?.cpu && koaModern ? ` (Koa: ${(koaModern / koa.cpu).toFixed(2)}x)` : ''}`,
      sdk: '-',
      mcpkit: n(modern.cpu),
      ratio: `${ratio.toFixed(2)}x`,
      budget: '<= 1.10x',
      within: ratio <= 1.1,
    });
  }

  const telemetry = (mode: string) => find(TELEMETRY_WORKLOAD, `mcpkit, ${mode}`)?.cpu;
  const off = telemetry('off');
  const noSdk = telemetry('full, no SDK');
  if (off && noSdk) {
    const extra = (noSdk / off - 1) * 100;
    lines.push({
      row: 'tracing on, no OTel SDK, vs off, CPU µs/req',
      floor: `${n(off)} off`,
      sdk: '-',
      mcpkit: n(noSdk),
      ratio: signed(extra, '%'),
      budget: '<= +3%',
      within: extra <= 3,
    });
  }
  const bare = telemetry('full, SDK no exporter');
  if (off && bare) {
    const extra = bare - off;
    lines.push({
      row: 'tracing, SDK providers, no exporter, vs off, µs/req',
      floor: `${n(off)} off`,
      sdk: '-',
      mcpkit: n(bare),
      ratio: signed(extra, ' µs'),
      budget: '<= +10 µs',
      within: extra <= 10,
    });
    // The same span and histogram point made by hand on the Koa floor: the SDK's own cost over HTTP.
    const [koa, koaSpan] = KOA_TRACED_FLOORS.map((f) => find(TELEMETRY_WORKLOAD, f.label)?.cpu);
    if (koa && koaSpan) {
      const own = extra - (koaSpan - koa);
      lines.push({
        // The floor: what the same span and histogram point add to the Koa floor; mcpkit: what they add to mcpkit.
        row: "the same, beyond the SDK's own cost (Koa + span), µs/req",
        floor: `${signed(koaSpan - koa, '')} Koa`,
        sdk: '-',
        mcpkit: signed(extra, ''),
        ratio: signed(own, ' µs'),
        budget: '<= +10 µs',
        within: own <= 10,
      });
    }
  }
  return lines;
}

function printFloors(lines: FloorLine[]): void {
  if (lines.length === 0) return;
  console.log(
    `\nfloors: mcpkit beside the same work done by hand (or its reference), and the SDK 1.x, this run${QUICK ? ' (--quick)' : ''}\n`,
  );
  const widths = [52, 14, 10, 10, 10, 12];
  const row = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i] ?? 8))).join('');
  console.log(row(['row', 'floor', 'sdk', 'mcpkit', 'ratio', 'budget', '  within']));
  for (const l of lines) console.log(row([l.row, l.floor, l.sdk, l.mcpkit, l.ratio, l.budget, l.within ? 'yes' : 'NO']));
  console.log(
    [
      '(ratio: mcpkit over the floor; for the session heap and the SSE events, over the budget. The floors are',
      ' servers/koa-floor-server.ts, servers/stdio-floor-server.ts and servers/peers-server.ts; the SSE budget is',
      " InMemoryEventStore's default maxBytesPerSession. The module load's floor is the peers, already loaded (0 ms);",
      " its floor column shows tsc's output, a file per module, for reference. The start and the module load are the",
      " published lib/ (bundled), with the code cache its first run saved. The module load's CPU time counts V8's",
      ' background threads too; its wall time is printed beside it above. Timings on a shared machine are noisy: --only=floors --runs=N',
      ' alternates the timed rows N times and keeps medians. Nothing here is asserted.)',
    ].join('\n'),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
