import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CALL, HEADERS, MODERN_CALL, MODERN_HEADERS, TRACEPARENT } from './requests';
import { cachegrindArgs, callgrindArgs, dumpedInstructions, instructionsIn } from './valgrind';

/**
 * What one stateless tools/call over HTTP costs a server, counted in instructions instead of timed. On a
 * shared machine the server CPU per request that bench/run.ts reads moves by ±30-50 µs between runs, so
 * that a row budgeted at +3% or +10 µs cannot be read from it; the instructions a process runs, counted
 * by valgrind, repeat from run to run to within ~1% (three runs of one build: a 2025-11-25 call 138.4,
 * 138.3 and 138.7 K, a 2026-07-28 one 155.4, 155.4 and 156.5 K).
 *
 * Each server (the same scripts as bench/run.ts, the same request and headers) runs under callgrind with
 * V8 --predictable (compiling and marking on the main thread, counted the same way each run) and a 64 MB
 * young generation. A client in this process sends it `--warm` calls, one at a time on one keep-alive
 * connection (one in flight: no run batches requests differently from another), has callgrind zero its
 * counts, sends `--calls` more and has callgrind write its counts out: the window's count over `--calls`
 * is the steady cost of a call, with no start, JIT warm-up or exit in it. (Counting whole runs under
 * cachegrind and subtracting a shorter run's count, as this bench did before, moved mcpkit's figures by
 * up to ~2% between runs of the same build.)
 *
 * The 2026-07-28 row has two floors of its own: the Koa floor answering that revision's call (its headers
 * checked against its body, `resultType` and serverInfo in the result), and the same request answered as a
 * 2025-11-25 call with nothing checked, which is what its bytes alone cost Node and V8 before any server code.
 *
 * Only user-space instructions are counted (the kernel's socket work is not, and is the same for all), and
 * an instruction is not a unit of time: a cache miss costs many. The table's last column scales each count
 * by the Koa floor's, to the 22-24 µs that floor took on the machine issue 22 was measured on.
 *
 * Run: `npm run -s build && node dist/bench/request-instructions.js [--calls=2000] [--warm=3000] [--only=a,b]`
 * (`--only` takes parts of the names, spaces written as dashes: `--only=mcpkit-2026,stdio`)
 * (needs valgrind: `apt-get install -y valgrind`; ~20 minutes in all on 2 cores, the SDK alone ~10). The JIT settles late
 * under --predictable: on the Koa floor the cost of a call falls from ~900 K instructions at the
 * 1,000th call to 148 K at the 10,000th and stays at 144 K from the 12,000th to the 30,000th, hence the
 * 12,000 warm calls.
 */
const arg = (name: string, fallback: string) => new RegExp(`--${name}=(\\S+)`).exec(process.argv.join(' '))?.[1] ?? fallback;
const CALLS = Number(arg('calls', '8000'));
const WARM = Number(arg('warm', '12000'));
/** Runs under valgrind at once: each is single-threaded (V8 --predictable), and a count does not depend on the others. */
const PARALLEL = Number(arg('parallel', '2'));
const ONLY = process.argv.some((a) => a.startsWith('--only=')) ? arg('only', '').split(',') : undefined;
const SERVERS = join(__dirname, 'servers');
/** Koa and @koa/router by hand: 22-24 µs of server CPU per call on the machine of issue 22's table. */
const ISSUE_KOA_FLOOR_US = 23;

interface Subject {
  name: string;
  script: string;
  env: Record<string, string>;
  headers: Record<string, string>;
  body: string;
}

/**
 * The stdio row counted the same way, in one process: bench/stdio-cpu.ts's driver (64 requests in flight)
 * feeding the newline-JSON loop or mcpkit's stdio transport, after its 10,000 warm calls, `n` calls. Its
 * counts hold the driver's own instructions, the same for both. The JIT and the heap settle later
 * here: the window is the 40,000 calls after the first 40,000.
 */
const STDIO = [
  { name: 'stdio: newline-JSON loop', impl: 'floor' },
  { name: 'stdio: mcpkit', impl: 'mcpkit' },
] as const;
const STDIO_WARM = 40_000;
const STDIO_CALLS = 40_000;

const SUBJECTS: Subject[] = [
  { name: 'floor: Koa by hand', script: 'koa-floor-server.js', env: {}, headers: HEADERS, body: CALL },
  // The protocol's floor for the 2026-07-28 row: what that revision's bytes and checks cost any server on Node.
  { name: 'floor: Koa 2026-07-28', script: 'koa-floor-server.js', env: {}, headers: MODERN_HEADERS, body: MODERN_CALL },
  // The same request answered as a 2025-11-25 call, nothing checked: the cost of its bytes alone.
  {
    name: 'floor: Koa 2026 request only',
    script: 'koa-floor-server.js',
    env: { FLOOR_REQUEST_ONLY: '1' },
    headers: MODERN_HEADERS,
    body: MODERN_CALL,
  },
  { name: 'mcpkit 2025-11-25', script: 'mcpkit-server.js', env: {}, headers: HEADERS, body: CALL },
  { name: 'mcpkit 2026-07-28', script: 'mcpkit-server.js', env: {}, headers: MODERN_HEADERS, body: MODERN_CALL },
  { name: 'sdk 2025-11-25', script: 'sdk-server.js', env: {}, headers: HEADERS, body: CALL },
  // The telemetry rows: each request carries a trace context, as bench/run.ts's telemetry workload.
  { name: 'floor: Koa, traceparent', script: 'koa-floor-server.js', env: {}, headers: { ...HEADERS, ...TRACEPARENT }, body: CALL },
  {
    name: 'floor: Koa + SDK span',
    script: 'koa-floor-server.js',
    env: { TELEMETRY_SDK: 'bare' },
    headers: { ...HEADERS, ...TRACEPARENT },
    body: CALL,
  },
  {
    name: 'mcpkit telemetry off',
    script: 'mcpkit-server.js',
    env: { TELEMETRY: 'off' },
    headers: { ...HEADERS, ...TRACEPARENT },
    body: CALL,
  },
  {
    name: 'mcpkit full, no SDK',
    script: 'mcpkit-server.js',
    env: { TELEMETRY: 'full', TELEMETRY_SDK: 'none' },
    headers: { ...HEADERS, ...TRACEPARENT },
    body: CALL,
  },
  {
    name: 'mcpkit full, SDK no exporter',
    script: 'mcpkit-server.js',
    env: { TELEMETRY: 'full', TELEMETRY_SDK: 'bare' },
    headers: { ...HEADERS, ...TRACEPARENT },
    body: CALL,
  },
];

/** Sends `n` calls one after another on one keep-alive connection; each answer must be the echo's. */
async function send(port: number, subject: Subject, n: number, agent: Agent): Promise<void> {
  for (let i = 0; i < n; i++) {
    const text = await new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: subject.headers, agent }, (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (data += c));
        res.on('end', () => resolve(data));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(subject.body);
    });
    if (!text.includes('"text":"hello"')) throw new Error(`${subject.name}: unexpected answer ${text.slice(0, 300)}`);
  }
}

/**
 * The instructions a server runs for `calls` calls after `warm`, counted by callgrind in that window
 * alone: zeroed after the warm calls, written out after the last (callgrind_control), so the start, the
 * JIT's warm-up and the exit are not in the count.
 */
async function count(subject: Subject, warm: number, calls: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-callgrind-'));
  const child = spawn('valgrind', callgrindArgs(dir, [join(SERVERS, subject.script)]), {
    env: { ...process.env, MODE: 'stateless', TOOLS: '1', ...subject.env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const control = (flag: string) => promisify(execFile)('callgrind_control', [flag, String(child.pid)]);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const port = await Promise.race([
      new Promise<number>((resolve) =>
        child.on('message', (m: { type?: string; port?: number }) => m.type === 'ready' && resolve(m.port!)),
      ),
      exited.then((code) => Promise.reject(new Error(`${subject.name} exited with ${code} before it listened:\n${stderr}`))),
    ]);
    await send(port, subject, warm, agent);
    await control('--zero');
    await send(port, subject, calls, agent);
    await control('--dump');
    const refs = dumpedInstructions(readFileSync(join(dir, `callgrind.${child.pid}.1`), 'utf8'));
    if (refs === undefined) throw new Error(`${subject.name}: no instruction count in callgrind's dump`);
    return refs;
  } finally {
    agent.destroy();
    if (child.connected) child.send({ type: 'exit' });
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Instructions the in-process stdio bench runs, from start to exit, for `n` calls after its warm-up. */
async function countStdio(impl: 'floor' | 'mcpkit', n: number): Promise<number> {
  const args = cachegrindArgs([join(__dirname, 'stdio-cpu.js'), `--only=${impl}`, '--runs=1', `--calls=${n}`]);
  const child = spawn('valgrind', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const refs = instructionsIn(stderr);
  if (code !== 0 || refs === undefined) throw new Error(`stdio ${impl}: no instruction count (exit ${code}):\n${stderr}`);
  return refs;
}

const selected = (name: string) => !ONLY || ONLY.some((o) => name.replace(/ /g, '-').includes(o));

async function main(): Promise<void> {
  const subjects = SUBJECTS.filter((s) => selected(s.name));
  const stdio = STDIO.filter((s) => selected(s.name));
  const jobs: { key: string; run: () => Promise<number> }[] = [
    ...subjects.map((subject) => ({ key: subject.name, run: () => count(subject, WARM, CALLS) })),
    ...stdio.flatMap((s) =>
      [STDIO_WARM, STDIO_WARM + STDIO_CALLS].map((n) => ({ key: `${s.name}@${n}`, run: () => countStdio(s.impl, n) })),
    ),
  ];
  const totals = new Map<string, number>();
  const worker = async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) totals.set(job.key, await job.run());
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  /** The steady cost of a stdio call: the count after `warm + calls` calls less the count after `warm`, over `calls`. */
  const steady = (name: string, warm: number, calls: number) =>
    (totals.get(`${name}@${warm + calls}`)! - totals.get(`${name}@${warm}`)!) / calls;
  const perCall = new Map(subjects.map((s) => [s.name, totals.get(s.name)! / CALLS]));
  const koa = perCall.get('floor: Koa by hand');
  const k = (x: number) => `${(x / 1000).toFixed(1)} K`;
  console.log(
    `\nstateless tools/call over HTTP, instructions a call (${CALLS} calls after ${WARM}, one in flight, Node ${process.version}):`,
  );
  for (const [name, value] of perCall) {
    const scaled = koa ? `  ~${((value / koa) * ISSUE_KOA_FLOOR_US).toFixed(1)} µs at the issue's speed` : '';
    console.log(`  ${name.padEnd(30)} ${k(value).padStart(9)}${koa ? `  ${(value / koa).toFixed(2)}x Koa` : ''}${scaled}`);
  }
  const delta = (a: string, b: string) => (perCall.has(a) && perCall.has(b) ? perCall.get(a)! - perCall.get(b)! : undefined);
  const lines: [string, number | undefined, number | undefined][] = [
    ['2026-07-28 over 2025-11-25', delta('mcpkit 2026-07-28', 'mcpkit 2025-11-25'), perCall.get('mcpkit 2025-11-25')],
    ['the same on the Koa floor', delta('floor: Koa 2026-07-28', 'floor: Koa by hand'), koa],
    ['its request alone on the Koa floor', delta('floor: Koa 2026 request only', 'floor: Koa by hand'), koa],
    ['tracing, no SDK, over off', delta('mcpkit full, no SDK', 'mcpkit telemetry off'), perCall.get('mcpkit telemetry off')],
    [
      'tracing, SDK no exporter, over off',
      delta('mcpkit full, SDK no exporter', 'mcpkit telemetry off'),
      perCall.get('mcpkit telemetry off'),
    ],
    ["the SDK's own span on Koa", delta('floor: Koa + SDK span', 'floor: Koa, traceparent'), perCall.get('floor: Koa, traceparent')],
  ];
  for (const [label, d, base] of lines) {
    if (d === undefined || base === undefined) continue;
    const us = koa ? `, ~${signed((d / koa) * ISSUE_KOA_FLOOR_US, ' µs')} at the issue's speed` : '';
    console.log(`  ${label.padEnd(36)} ${signed(d / 1000, ' K')} (${signed((d / base) * 100, '%')})${us}`);
  }
  if (stdio.length === 0) return;
  const perMessage = new Map(stdio.map((s) => [s.name, steady(s.name, STDIO_WARM, STDIO_CALLS)]));
  console.log(
    `\nstdio tools/call in one process, instructions a call (${STDIO_CALLS} after ${STDIO_WARM}, 64 in flight, driver included):`,
  );
  for (const [name, value] of perMessage) console.log(`  ${name.padEnd(30)} ${k(value).padStart(9)}`);
  const [loop, mcpkit] = STDIO.map((s) => perMessage.get(s.name));
  if (loop && mcpkit)
    console.log(`  mcpkit's rate, as a share of the loop's, at equal speed per instruction: ${((loop / mcpkit) * 100).toFixed(0)}%`);
}

function signed(n: number, unit: string): string {
  return `${n >= 0 ? '+' : ''}${n.toFixed(1)}${unit}`;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
