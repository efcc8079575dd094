/**
 * A bounded fuzz of the built notes sample, over stdio and Streamable HTTP (child processes, loopback,
 * port 0), with mutated JSON-RPC (see fuzz-inputs.ts). Counts what must never happen:
 *  - crashes: the server process exited;
 *  - unanswered: a request with a valid id got no JSON-RPC answer within the timeout;
 *  - nonJsonRpc: an HTTP answer on the MCP path (or a stdout line) that is not JSON-RPC;
 *  - internalErrors: a -32603 answer, though every input here is the client's doing.
 * Run: `npm run fuzz` (60 s per transport, both at once), `-- --seconds=N`, `-- --seed=N`,
 * `-- --only=stdio|http`, `-- --script=path/to/server.js` (default: the built notes sample). Prints a table and exits non-zero when a count is above 0; the first
 * failing inputs of each kind are written to a file named in the output.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FuzzInput, InputGenerator, random } from './fuzz-inputs';

export interface FuzzCounts {
  sent: number;
  owed: number;
  answered: number;
  crashes: number;
  unanswered: number;
  nonJsonRpc: number;
  internalErrors: number;
}

export interface FuzzReport {
  seed: number;
  transports: Record<string, FuzzCounts>;
  /** Up to a few failing inputs per transport and kind. */
  failures: { transport: string; kind: string; mutation: string; method?: string; input: string; detail: string }[];
}

export interface FuzzOptions {
  seconds?: number;
  seed?: number;
  only?: 'stdio' | 'http';
  /** The server script (default: the built notes sample). */
  script?: string;
  /** How long an owed answer may take, in ms (default 10 s). */
  answerTimeoutMs?: number;
}

const SAMPLE = join(__dirname, '..', 'samples', 'notes', 'main.js');
const FAILURE_FIELDS = ['crashes', 'unanswered', 'nonJsonRpc', 'internalErrors'] as const;
const KEEP_PER_KIND = 5;

type Answer = Record<string, unknown>;

class Tally {
  readonly counts: FuzzCounts = { sent: 0, owed: 0, answered: 0, crashes: 0, unanswered: 0, nonJsonRpc: 0, internalErrors: 0 };
  constructor(
    readonly transport: string,
    private readonly report: FuzzReport,
  ) {}

  fail(kind: (typeof FAILURE_FIELDS)[number], input: FuzzInput | undefined, detail: string): void {
    this.counts[kind]++;
    if (this.report.failures.filter((f) => f.transport === this.transport && f.kind === kind).length >= KEEP_PER_KIND) return;
    this.report.failures.push({
      transport: this.transport,
      kind,
      mutation: input?.mutation ?? '-',
      method: input?.method,
      input: input ? input.bytes.toString('utf8', 0, Math.min(input.bytes.length, 20_000)) : '',
      detail: detail.slice(0, 1000),
    });
  }

  /** Checks one answer to an input: JSON-RPC, and not -32603. */
  answer(input: FuzzInput, message: unknown): void {
    if (!isJsonRpcResponse(message)) return this.fail('nonJsonRpc', input, JSON.stringify(message).slice(0, 300));
    const error = message.error as { code?: unknown; message?: unknown } | undefined;
    if (error?.code === -32603) this.fail('internalErrors', input, String(error.message));
  }
}

function isJsonRpcResponse(m: unknown): m is Answer {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return false;
  const r = m as Answer;
  if (r.jsonrpc !== '2.0' || !('id' in r)) return false;
  if ('result' in r) return !('error' in r);
  const e = r.error as Answer | undefined;
  return typeof e === 'object' && e !== null && Number.isInteger(e.code) && typeof e.message === 'string';
}

function taskIdOf(message: Answer): string | undefined {
  const task = (message.result as { task?: { taskId?: unknown } } | undefined)?.task;
  return typeof task?.taskId === 'string' ? task.taskId : undefined;
}

const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } };

/** stdio: one process, inputs pipelined (at most 16 owed answers outstanding). */
async function fuzzStdio(script: string, rnd: () => number, deadline: number, timeoutMs: number, tally: Tally): Promise<void> {
  const child = spawn(process.execPath, [script, '--stdio'], { stdio: 'pipe' });
  const gen = new InputGenerator(rnd, 'f');
  const owed = new Map<string, { input: FuzzInput; since: number }[]>();
  /** The last inputs written, for the report of a crash. */
  const recent: Buffer[] = [];
  const write = (bytes: Buffer) => {
    recent.push(bytes.subarray(0, 300));
    if (recent.length > 3) recent.shift();
    return child.stdin.write(Buffer.concat([bytes, Buffer.from('\n')]));
  };
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  child.stderr.resume();
  let buffer = '';
  let wake: (() => void) | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let message: Answer;
      try {
        message = JSON.parse(line) as Answer;
      } catch {
        tally.fail('nonJsonRpc', undefined, `stdout line: ${line.slice(0, 200)}`);
        continue;
      }
      if (typeof message.method === 'string') {
        // A request from the server: refused, so that nothing waits on this client.
        if ('id' in message) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'not supported by the fuzzer' } })}\n`);
        continue;
      }
      const key = JSON.stringify(message.id);
      const waiting = owed.get(key);
      const entry = waiting?.shift();
      if (waiting && waiting.length === 0) owed.delete(key);
      const taskId = taskIdOf(message);
      if (taskId) gen.taskIds.push(taskId);
      if (entry) {
        tally.counts.answered++;
        tally.answer(entry.input, message);
      } else if (!isJsonRpcResponse(message)) {
        tally.fail('nonJsonRpc', undefined, line.slice(0, 300));
      }
    }
    wake?.();
  });
  child.stdin.on('error', () => undefined);
  const outstanding = () => [...owed.values()].reduce((n, list) => n + list.length, 0);
  const waitForOutput = (ms: number) => new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    wake = () => (clearTimeout(timer), resolve());
  });
  const expire = (now: number) => {
    for (const [key, list] of owed) {
      while (list.length > 0 && now - list[0].since > timeoutMs) tally.fail('unanswered', list.shift()!.input, `no answer for id ${key.slice(0, 60)} within ${timeoutMs} ms`);
      if (list.length === 0) owed.delete(key);
    }
  };

  try {
    await stdioLoop();
  } finally {
    if (!exited) child.kill('SIGKILL');
  }

  async function stdioLoop(): Promise<void> {
  child.stdin.write(`${JSON.stringify(INIT)}\n`);
  tally.counts.owed++;
  owed.set('"init"', [{ input: { bytes: Buffer.from(JSON.stringify(INIT)), owedId: '"init"', mutation: 'initialize' }, since: Date.now() }]);
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  while (Date.now() < deadline && !exited) {
    if (outstanding() >= 16) {
      await waitForOutput(50);
      expire(Date.now());
      continue;
    }
    if (rnd() < 0.03 && owed.size > 0) {
      // Cancel a request in flight (its answer is no longer owed), with a reason of any type.
      const [key, list] = owed.entries().next().value!; // the oldest: the likeliest to be still running
      const requestId: unknown = JSON.parse(key);
      if (typeof requestId === 'string' && requestId !== 'init') {
        list.shift();
        tally.counts.owed--;
        if (list.length === 0) owed.delete(key);
        tally.counts.sent++;
        write(gen.cancel(requestId));
        continue;
      }
    }
    const input = gen.next();
    tally.counts.sent++;
    if (input.owedId) {
      tally.counts.owed++;
      const list = owed.get(input.owedId) ?? [];
      list.push({ input, since: Date.now() });
      owed.set(input.owedId, list);
    }
    const ok = write(input.bytes);
    if (!ok) await Promise.race([new Promise<void>((resolve) => child.stdin.once('drain', resolve)), exit]);
    if (tally.counts.sent % 8 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  const drainUntil = Date.now() + timeoutMs;
  while (outstanding() > 0 && Date.now() < drainUntil && !exited) await waitForOutput(50);
  if (exited) tally.fail('crashes', undefined, `exit code ${child.exitCode}, signal ${child.signalCode}; last inputs: ${recent.map((b) => b.toString('utf8')).join(' | ')}`);
  expire(Number.POSITIVE_INFINITY);
  child.stdin.end();
  await within(exit, 5_000);
  }
}

/** Streamable HTTP: one session, 8 requests in flight. */
async function fuzzHttp(script: string, rnd: () => number, deadline: number, timeoutMs: number, tally: Tally): Promise<void> {
  const child = spawn(process.execPath, [script], { stdio: 'pipe', env: { ...process.env, PORT: '0', HOST: '127.0.0.1' } });
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  child.stdout.resume();
  const url = await new Promise<string | undefined>((resolve) => {
    let err = '';
    const timer = setTimeout(() => resolve(undefined), 15_000);
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
      const m = /serving MCP at (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
      if (err.length > 100_000) err = err.slice(-10_000);
    });
    void exit.then(() => resolve(undefined));
  });
  if (!url) {
    tally.fail('crashes', undefined, 'the HTTP server did not start');
    child.kill('SIGKILL');
    return;
  }
  const gen = new InputGenerator(rnd, 'h');
  let sessionId = '';
  /** Requests in flight by id, and those the fuzzer cancelled (owed no answer then). */
  const inflight = new Set<string>();
  const cancelled = new Set<string>();
  const post = async (body: Buffer | string, input?: FuzzInput, headerChange?: Record<string, string>): Promise<{ status: number; type: string; text: string; session: string | null } | undefined> => {
    try {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(sessionId ? { 'mcp-session-id': sessionId } : {}) };
      for (const [name, value] of Object.entries(headerChange ?? {})) {
        if (value === '') delete headers[name];
        else headers[name] = value;
      }
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text(), session: res.headers.get('mcp-session-id') };
    } catch (error) {
      const wasCancelled = input?.owedId !== undefined && cancelled.has(input.owedId);
      if (!exited && !wasCancelled) tally.fail('unanswered', input, `HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  };
  const initialize = async () => {
    sessionId = '';
    const res = await post(JSON.stringify(INIT));
    sessionId = res?.session ?? '';
    await post('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  };
  await initialize();

  /** Header changes: each is answered by an HTTP error with a JSON-RPC body (id null), never by the method. */
  const HEADER_CHANGES: Record<string, string>[] = [
    { 'mcp-session-id': '' },
    { 'mcp-session-id': 'f'.repeat(32) },
    { 'mcp-session-id': 'x'.repeat(5_000) },
    { 'mcp-protocol-version': '1999-01-01' },
    { 'content-type': 'text/plain' },
    { accept: 'application/json' },
  ];
  const one = async (generated: FuzzInput) => {
    if (rnd() < 0.03 && inflight.size > 0) {
      const key = inflight.values().next().value!; // the oldest: the likeliest to be still running
      const requestId: unknown = JSON.parse(key);
      if (typeof requestId === 'string') {
        cancelled.add(key);
        tally.counts.sent++;
        const cancel: FuzzInput = { bytes: gen.cancel(requestId), mutation: 'cancel in flight', method: 'notifications/cancelled' };
        const res = await post(cancel.bytes);
        if (res && !(res.status === 202 && res.text === '')) tally.fail('nonJsonRpc', cancel, `a cancellation was answered ${res.status} ${res.text.slice(0, 200)}`);
        return;
      }
    }
    if (generated.owedId) inflight.add(generated.owedId);
    try {
      await request(generated);
    } finally {
      if (generated.owedId) inflight.delete(generated.owedId);
      if (generated.owedId) cancelled.delete(generated.owedId);
    }
  };
  const request = async (generated: FuzzInput) => {
    const headerChange = rnd() < 0.1 ? HEADER_CHANGES[Math.floor(rnd() * HEADER_CHANGES.length)] : undefined;
    // An initialize without a session header legitimately opens a session and answers.
    const input = headerChange ? { ...generated, owedId: undefined, mutation: `${generated.mutation}; headers ${JSON.stringify(headerChange).slice(0, 60)}` } : generated;
    tally.counts.sent++;
    if (input.owedId) tally.counts.owed++;
    const res = await post(input.bytes, input, headerChange);
    if (!res) return;
    if (input.owedId && cancelled.has(input.owedId)) {
      // Cancelled: no answer is owed (204, or whatever came first); a body must still be JSON-RPC.
      tally.counts.owed--;
      if (res.status === 204 || res.text === '') return;
      if (res.type.startsWith('application/json')) {
        try {
          JSON.parse(res.text);
        } catch {
          tally.fail('nonJsonRpc', input, `${res.status} ${res.text.slice(0, 200)}`);
        }
      }
      return;
    }
    if (!headerChange && res.status === 404 && /session/i.test(res.text)) return initialize(); // the session was closed: start another
    if (res.status === 202 && res.text === '') {
      if (input.owedId) tally.fail('unanswered', input, 'a request was answered 202 Accepted');
      return;
    }
    const messages: unknown[] = [];
    if (res.type.startsWith('application/json')) {
      try {
        messages.push(JSON.parse(res.text));
      } catch {
        return tally.fail('nonJsonRpc', input, `${res.status} ${res.type}: ${res.text.slice(0, 200)}`);
      }
    } else if (res.type.startsWith('text/event-stream')) {
      for (const block of res.text.split('\n\n')) {
        const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('');
        if (!data) continue;
        try {
          messages.push(JSON.parse(data));
        } catch {
          return tally.fail('nonJsonRpc', input, `SSE data: ${data.slice(0, 200)}`);
        }
      }
    } else {
      return tally.fail('nonJsonRpc', input, `${res.status} ${res.type}: ${res.text.slice(0, 200)}`);
    }
    const responses = messages.filter((m) => typeof m !== 'object' || m === null || !('method' in m));
    for (const m of responses) {
      if (typeof m === 'object' && m !== null) {
        const taskId = taskIdOf(m as Answer);
        if (taskId) gen.taskIds.push(taskId);
      }
    }
    const mine = input.owedId ? responses.find((m) => JSON.stringify((m as Answer)?.id) === input.owedId) : responses[responses.length - 1];
    if (input.owedId && !mine) return tally.fail('unanswered', input, `${res.status}: no answer with id ${input.owedId.slice(0, 60)} in ${res.text.slice(0, 200)}`);
    if (mine !== undefined) {
      if (input.owedId) tally.counts.answered++;
      tally.answer(input, mine);
    }
  };
  const worker = async () => {
    while (Date.now() < deadline && !exited) await one(gen.next());
  };
  try {
    await Promise.all(Array.from({ length: 8 }, worker));
    if (exited) tally.fail('crashes', undefined, `exit code ${child.exitCode}, signal ${child.signalCode}`);
    child.kill('SIGTERM');
    await within(exit, 5_000);
  } finally {
    if (!exited) child.kill('SIGKILL');
  }
}

/** Waits for a promise at most `ms`, leaving no timer behind. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Runs the fuzz and returns the counts; the CLI below prints them. */
export async function runFuzz(options: FuzzOptions = {}): Promise<FuzzReport> {
  const seconds = options.seconds ?? 60;
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const script = options.script ?? SAMPLE;
  const timeoutMs = options.answerTimeoutMs ?? 10_000;
  const report: FuzzReport = { seed, transports: {}, failures: [] };
  const deadline = Date.now() + seconds * 1000;
  const runs: Promise<void>[] = [];
  if (options.only !== 'http') {
    const tally = new Tally('stdio', report);
    report.transports.stdio = tally.counts;
    runs.push(fuzzStdio(script, random(seed), deadline, timeoutMs, tally));
  }
  if (options.only !== 'stdio') {
    const tally = new Tally('http', report);
    report.transports.http = tally.counts;
    runs.push(fuzzHttp(script, random(seed + 1), deadline, timeoutMs, tally));
  }
  await Promise.all(runs);
  return report;
}

export function failureCount(report: FuzzReport): number {
  return Object.values(report.transports).reduce((n, c) => n + FAILURE_FIELDS.reduce((m, f) => m + c[f], 0), 0);
}

function printReport(report: FuzzReport): void {
  const fields = ['sent', 'owed', 'answered', ...FAILURE_FIELDS] as const;
  const rows = Object.entries(report.transports).map(([name, c]) => [name, ...fields.map((f) => String(c[f]))]);
  const table = [['transport', ...fields], ...rows];
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
  for (const row of table) console.log(row.map((cell, i) => cell.padStart(widths[i])).join('  '));
  console.log(`seed ${report.seed}`);
  if (report.failures.length === 0) return;
  const file = join(tmpdir(), `mcpkit-fuzz-${report.seed}.json`);
  writeFileSync(file, JSON.stringify(report.failures, null, 2));
  for (const f of report.failures) console.log(`- ${f.transport} ${f.kind} [${f.mutation}] ${f.method ?? ''}: ${f.detail} | input: ${f.input.slice(0, 160)}`);
  console.log(`failing inputs (whole): ${file}`);
}

if (require.main === module) {
  const arg = (name: string) => new RegExp(`--${name}=(\\S+)`).exec(process.argv.slice(2).join(' '))?.[1];
  const only = arg('only');
  runFuzz({
    seconds: Number(arg('seconds') ?? 60),
    seed: arg('seed') === undefined ? undefined : Number(arg('seed')),
    only: only === 'stdio' || only === 'http' ? only : undefined,
    script: arg('script'),
  })
    .then((report) => {
      printReport(report);
      process.exitCode = failureCount(report) > 0 ? 1 : 0;
    })
    .catch((error) => {
      console.error(error);
      process.exitCode = 2;
    });
}
