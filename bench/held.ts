/**
 * The workloads that read what a server holds: tasks run to completion (and their heap), idle HTTP
 * sessions (heap per session), and the SSE events one session keeps for resumption.
 */
import { IMPL_NAMES, type Impl, openSession, QUICK, rows, startServer, startStdioServer, ask } from './measure';
import autocannon from 'autocannon';
import { CALL, HEADERS, MODERN_CALL, MODERN_HEADERS, MODERN_META } from './requests';

/** The envelope of a client declaring the tasks extension (io.modelcontextprotocol/tasks). */
const TASKS_META = {
  ...MODERN_META,
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};
const TASK_COUNT = QUICK ? 3_000 : 10_000;
export const TASKS_WORKLOAD = `${TASK_COUNT} tasks: tools/call + tasks/result, stdio`;

/**
 * 10,000 tasks created with tools/call (task-augmented) and collected with tasks/result, 64 flows
 * at a time, over stdio; then the server's heap once they are done and once their ttl ran out.
 */
export async function tasksLoad(impl: 'mcpkit' | 'sdk1', era: 'legacy' | 'modern' = 'legacy'): Promise<void> {
  const total = TASK_COUNT;
  const ttlMs = 3_000;
  const child = startStdioServer(impl, { TOOLS: '1', TASKS: '1' });
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
    workload: era === 'modern' ? `${total} tasks (modern): tools/call + tasks/get, stdio` : TASKS_WORKLOAD,
    impl: era === 'modern' ? `${IMPL_NAMES[impl]} (modern)` : IMPL_NAMES[impl],
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

export const MEMORY_WORKLOAD = 'heap per idle HTTP session (2,000 sessions)';

export async function sessionMemory(impl: Impl): Promise<void> {
  const server = await startServer(impl, { MODE: 'sessions', TOOLS: '1' });
  try {
    await openSession(server.port); // warm every code path once
    const before = await server.heap();
    const count = 2_000;
    for (let i = 0; i < count; i += 20) await Promise.all(Array.from({ length: 20 }, () => openSession(server.port)));
    const after = await server.heap();
    rows.push({
      workload: MEMORY_WORKLOAD,
      impl: IMPL_NAMES[impl],
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

export const SOAK_WORKLOAD = 'heap over 100,000 stateless tools/call (after a full GC)';
/** How much a soak's heap may grow and still read as flat: well under a byte per call. */
export const SOAK_BUDGET_BYTES = 1024 * 1024;

/**
 * A soak: 100,000 stateless tools/call over HTTP (32 connections) in one era, the heap measured after a
 * full GC before and after (once warmed up): what the calls leave behind.
 */
export async function soak(era: 'legacy' | 'modern'): Promise<void> {
  const server = await startServer('mcpkit', { MODE: 'stateless', TOOLS: '1' });
  try {
    const modern = era === 'modern';
    const run = (amount: number) =>
      autocannon({
        url: `http://127.0.0.1:${server.port}/mcp`,
        method: 'POST',
        headers: modern ? MODERN_HEADERS : HEADERS,
        body: modern ? MODERN_CALL : CALL,
        connections: 32,
        amount,
        timeout: 20,
      });
    await run(10_000);
    const before = await server.heap();
    const result = await run(QUICK ? 20_000 : 100_000);
    const after = await server.heap();
    const bad = result.non2xx + result.errors + result.timeouts;
    rows.push({
      workload: SOAK_WORKLOAD,
      impl: `mcpkit (${era === 'modern' ? '2026-07-28' : '2025-11-25'})`,
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      value: after - before,
      note: `${((after - before) / 1024).toFixed(0)} KB over ${result.requests.total} calls${bad ? `; ${bad} failed` : ''}`,
    });
  } finally {
    await server.stop();
  }
}

export const SSE_WORKLOAD = 'SSE events kept for resumption, one session';
/** InMemoryEventStore's documented default maxBytesPerSession (docs/guide/deployment.md: 4 MiB per session). */
export const SSE_BUDGET_BYTES = 4 * 1024 * 1024;
/**
 * What is sent: `calls` tools/call of the flood tool, one after the other (each its own request stream),
 * each sending `count` log messages of `size` characters `char`.
 */
export const SSE_CASES = {
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
export async function sseRetention(which: keyof typeof SSE_CASES): Promise<void> {
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
