/**
 * mcpkit beside its floors and the official TypeScript SDKs, 1.x (`@modelcontextprotocol/sdk`) and 2.x
 * (`@modelcontextprotocol/server`), same workloads, same run, same machine. The default run:
 *  - call: tools/call over stateless HTTP, 32 connections: the Koa floor, mcpkit (2025-11-25, 2026-07-28,
 *    and the same echo registered with `app.addTool` and a JSON Schema), the SDK 1.x and the SDK 2.x
 *    (both eras), each the SDK's documented stateless pattern;
 *  - list: tools/list of a server with 1,000 tools over stateless HTTP (whole list in one response);
 *  - stdio: tools/call over stdio, 64 requests in flight, beside a newline-delimited JSON loop;
 *  - memory: heap per idle HTTP session, over 2,000 sessions;
 *  - soak: the heap after 100,000 stateless calls in each era, against before them (after a full GC);
 *  - sse: the heap one session holds through the default in-memory event store (mcpkit only);
 *  - tasks: 10,000 tasks created and completed over stdio (mcpkit in both eras, the SDK 1.x);
 *  - coldstart: a stdio server's spawn -> first tools/call answer, beside a process loading only the peers;
 *  - telemetry: the modes of the floors table once (tracing off, on with no OpenTelemetry SDK, on with
 *    the SDK's providers), beside the Koa floor with and without the SDK's own span;
 *  - policies: what each call policy costs a tools/call in process, off, in memory and on Redis
 *    (policies-cost.ts);
 *  - search: search mode on a 1,000-tool catalog: tools/list's bytes with and without it, and the search
 *    tool's latency at 1,000 and 10,000 tools (tool-search.ts).
 * By name only (`--only=...`): `sessions` (call and list with sessions), `auth` (bearer JWT, see
 * auth-load.ts), `proxy` (see proxy.ts), `modern` (both eras alternating), `floors` (the rows of the
 * floors table, alternating), `telemetry` (every mode). `--runs=N` repeats what is asked by name.
 * The floors table (floors.ts) ends the run: each mcpkit figure beside its floor and both SDKs, with its
 * budget. Every run writes its figures to a results file (results.ts): bench/results/latest.md for a
 * full run. Run: `npm run bench` (`-- --quick` for a shorter run). Prints figures; asserts nothing.
 */
import { createServer } from 'node:http';
import autocannon from 'autocannon';
import { authLoad, authOverheadLines } from './auth-load';
import { type ColdStartRow, coldStart } from './coldstart';
import { floorLines, KOA_FLOOR, KOA_MODERN_FLOOR, printFloors } from './floors';
import { sessionMemory, soak, SSE_CASES, sseRetention, tasksLoad, TASKS_WORKLOAD } from './held';
import {
  CALL_WORKLOAD,
  collapse,
  DURATION,
  findRow,
  httpLoad,
  IMPL_NAMES,
  isCall,
  isList,
  isModernCall,
  LIST_WORKLOAD,
  ONLY,
  QUICK,
  type Row,
  rows,
  RUNS,
  STDIO_CALL,
  stdioLoad,
  wanted,
} from './measure';
import { proxyBench } from './proxy';
import { policiesCost } from './policies-cost';
import { CALL, HEADERS, MODERN_CALL } from './requests';
import { writeResults } from './results';
import { telemetryLines, telemetryLoad } from './telemetry-load';
import { toolSearchBench } from './tool-search';

const SCHEMA_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo_schema', arguments: { text: 'hello' } },
});
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const SDKS = ['sdk1', 'sdk2'] as const;
const SSE_WHICH = Object.keys(SSE_CASES) as (keyof typeof SSE_CASES)[];

/** The default set's HTTP tools/call rows: the floor, mcpkit in both eras and with addTool, both SDKs. */
async function callRows(): Promise<void> {
  await httpLoad(CALL_WORKLOAD, 'floor', 'stateless', CALL, 1, isCall, KOA_FLOOR);
  await httpLoad(CALL_WORKLOAD, 'mcpkit', 'stateless', CALL, 1, isCall);
  for (const sdk of SDKS) await httpLoad(CALL_WORKLOAD, sdk, 'stateless', CALL, 1, isCall);
  await httpLoad(CALL_WORKLOAD, 'floor', 'modern', MODERN_CALL, 1, isModernCall, KOA_MODERN_FLOOR);
  await httpLoad(CALL_WORKLOAD, 'mcpkit', 'modern', MODERN_CALL, 1, isModernCall);
  // The 2026-07-28 era: the SDK 2.x serves it, the SDK 1.x does not.
  await httpLoad(CALL_WORKLOAD, 'sdk2', 'modern', MODERN_CALL, 1, isModernCall);
  // The same call of a tool registered at runtime (JSON Schema checked by Ajv) beside the decorated one.
  await httpLoad(CALL_WORKLOAD, 'mcpkit', 'stateless', SCHEMA_CALL, 1, isCall, {
    env: { RUNTIME_TOOL: '1' },
    headers: {},
    label: 'mcpkit, addTool',
  });
}

async function listRows(mode: 'stateless' | 'sessions'): Promise<void> {
  for (const impl of ['mcpkit', ...SDKS] as const) await httpLoad(LIST_WORKLOAD, impl, mode, LIST, 1000, isList);
}

async function stdioRows(): Promise<void> {
  await stdioLoad('floor');
  await stdioLoad('mcpkit');
  for (const sdk of SDKS) await stdioLoad(sdk);
  await stdioLoad('mcpkit', 'modern');
  await stdioLoad('sdk2', 'modern');
}

/** `--only=sessions`: the call and the list over HTTP with sessions (the 2025-11-25 era), mcpkit and both SDKs. */
async function sessionRows(): Promise<void> {
  for (const impl of ['mcpkit', ...SDKS] as const) await httpLoad(CALL_WORKLOAD, impl, 'sessions', CALL, 1, isCall);
  await listRows('sessions');
}

/** `--only=modern`: both eras of mcpkit beside the SDKs' stateless calls, alternating, RUNS times. */
async function modernComparison(): Promise<void> {
  for (let i = 0; i < RUNS; i++) {
    await httpLoad(CALL_WORKLOAD, 'mcpkit', 'stateless', CALL, 1, isCall);
    await httpLoad(CALL_WORKLOAD, 'mcpkit', 'modern', MODERN_CALL, 1, isModernCall);
    await httpLoad(CALL_WORKLOAD, 'sdk2', 'modern', MODERN_CALL, 1, isModernCall);
    await httpLoad(CALL_WORKLOAD, 'sdk1', 'stateless', CALL, 1, isCall);
    await stdioLoad('mcpkit', 'legacy');
    await stdioLoad('mcpkit', 'modern');
    await stdioLoad('sdk2', 'modern');
    await stdioLoad('sdk1', 'legacy');
  }
}

/**
 * `--only=floors`: the workloads of the floors table, each floor next to mcpkit and the SDKs, the timed
 * ones alternating `--runs=N` times.
 */
async function floorsComparison(): Promise<ColdStartRow[]> {
  for (let i = 0; i < RUNS; i++) {
    await httpLoad(CALL_WORKLOAD, 'floor', 'stateless', CALL, 1, isCall, KOA_FLOOR);
    await httpLoad(CALL_WORKLOAD, 'floor', 'modern', MODERN_CALL, 1, isModernCall, KOA_MODERN_FLOOR);
    await httpLoad(CALL_WORKLOAD, 'mcpkit', 'stateless', CALL, 1, isCall);
    await httpLoad(CALL_WORKLOAD, 'mcpkit', 'modern', MODERN_CALL, 1, isModernCall);
    for (const sdk of SDKS) await httpLoad(CALL_WORKLOAD, sdk, 'stateless', CALL, 1, isCall);
    await httpLoad(CALL_WORKLOAD, 'sdk2', 'modern', MODERN_CALL, 1, isModernCall);
    await listRows('stateless');
    await stdioLoad('floor');
    await stdioLoad('mcpkit');
    for (const sdk of SDKS) await stdioLoad(sdk);
    await telemetryLoad(1, true);
  }
  for (const impl of ['mcpkit', ...SDKS] as const) await sessionMemory(impl);
  for (const which of SSE_WHICH) await sseRetention(which);
  return printColdStart();
}

/** Runs the load generator for a few seconds against a trivial server, so its own warm-up costs no workload. */
async function warmLoadGenerator(): Promise<void> {
  const server = createServer((_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  await autocannon({ url: `http://127.0.0.1:${port}/`, method: 'POST', headers: HEADERS, body: CALL, connections: 32, duration: 3 });
  await new Promise((r) => server.close(r));
}

async function main(): Promise<void> {
  const started = performance.now();
  const named = (name: string) => ONLY?.includes(name) ?? false;
  const http = wanted('call') || wanted('list') || ['sessions', 'auth', 'modern', 'telemetry', 'proxy', 'floors'].some(named);
  if (http) await warmLoadGenerator();
  let cold: ColdStartRow[] | undefined;
  if (named('modern')) await modernComparison();
  if (named('floors')) cold = await floorsComparison();
  else {
    if (wanted('call')) await callRows();
    if (wanted('list')) await listRows('stateless');
    if (named('sessions')) await sessionRows();
    if (wanted('stdio')) await stdioRows();
    if (wanted('memory')) for (const impl of ['mcpkit', ...SDKS] as const) await sessionMemory(impl);
    if (wanted('soak')) for (const era of ['legacy', 'modern'] as const) await soak(era);
    // The event store's byte budget: mcpkit only (the SDKs keep no events unless given a store).
    if (wanted('sse')) for (const which of SSE_WHICH) await sseRetention(which);
    // The SDK 1.x serves tasks in the 2025-11-25 era; the 2026-07-28 tasks extension is mcpkit's only here.
    if (wanted('tasks')) {
      await tasksLoad('mcpkit');
      await tasksLoad('sdk1');
      await tasksLoad('mcpkit', 'modern');
    }
    // By name: every mode, `--runs=N` times; in the default set: once, the three modes of the floors table.
    if (named('telemetry')) await telemetryLoad(RUNS);
    else if (!ONLY) await telemetryLoad(1, true);
    if (wanted('coldstart')) cold = await printColdStart();
    if (wanted('policies')) await policiesCost(QUICK ? 1 : 3);
    if (wanted('search')) await toolSearchBench(QUICK);
  }
  // mcpkit alone (the SDKs verify no tokens themselves).
  if (named('auth')) await authLoad(RUNS);
  rows.splice(0, rows.length, ...collapse(rows));
  rows.sort((a, b) => a.workload.localeCompare(b.workload));
  // `--only=proxy` (or coldstart) alone measures nothing for this table: it prints its own.
  if (rows.length > 0) printTable(rows);
  if (named('proxy')) await proxyBench({ runs: RUNS, duration: DURATION, quick: QUICK });
  const floors = floorLines(cold);
  printFloors(floors);
  const file = writeResults({ rows, floors, coldStart: cold, options: process.argv.slice(2), duration: DURATION });
  console.log(`\nfigures written to ${file} (and .json beside it); ${((performance.now() - started) / 60_000).toFixed(1)} minutes`);
}

function printTable(all: Row[]): void {
  const fmt = (n: number | undefined, digits = 0) => (n === undefined || !Number.isFinite(n) ? '-' : n === 0 ? '<1' : n.toFixed(digits));
  console.log(
    `\nmcpkit, @modelcontextprotocol/sdk (1.x) and @modelcontextprotocol/server (2.x): node ${process.version}, ${DURATION}s per HTTP run\n`,
  );
  console.log(
    `${'workload'.padEnd(52)}${'implementation'.padEnd(32)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'cpu µs/req'.padStart(12)}  note`,
  );
  for (const r of all) {
    console.log(
      `${r.workload.padEnd(52)}${r.impl.padEnd(32)}${fmt(r.rps).padStart(10)}${fmt(r.p50, 2).padStart(9)}${fmt(r.p99, 2).padStart(9)}${fmt(r.cpu, 1).padStart(12)}  ${r.note ?? ''}`,
    );
  }
  console.log('(HTTP latencies come from autocannon at 1 ms resolution; "cpu µs/req" is the server process\'s own CPU time per request.)');
  console.log('("(modern)" rows: MCP 2026-07-28, stateless, per-request _meta; the SDK 1.x serves the 2025-11-25 era only.)');
  const lines = [
    ...SDKS.flatMap((sdk) => [
      ratioLine(CALL_WORKLOAD, 'mcpkit (stateless)', `${IMPL_NAMES[sdk]} (stateless)`),
      ratioLine(CALL_WORKLOAD, 'mcpkit (sessions)', `${IMPL_NAMES[sdk]} (sessions)`),
      ratioLine(LIST_WORKLOAD, 'mcpkit (stateless)', `${IMPL_NAMES[sdk]} (stateless)`),
      ratioLine(LIST_WORKLOAD, 'mcpkit (sessions)', `${IMPL_NAMES[sdk]} (sessions)`),
      ratioLine(STDIO_CALL, 'mcpkit', IMPL_NAMES[sdk]),
    ]),
    ratioLine(CALL_WORKLOAD, 'mcpkit (modern)', 'sdk 2.x (modern)'),
    ratioLine(STDIO_CALL, 'mcpkit (modern)', 'sdk 2.x (modern)'),
    ratioLine(TASKS_WORKLOAD, 'mcpkit', 'sdk 1.x'),
    ...authOverheadLines(),
    ...telemetryLines(),
  ].filter(Boolean);
  if (lines.length > 0) console.log(`\nratios:\n${lines.join('\n')}`);
  const eras = [eraLine(CALL_WORKLOAD, 'mcpkit (modern)', 'mcpkit (stateless)'), eraLine(STDIO_CALL, 'mcpkit (modern)', 'mcpkit')].filter(
    Boolean,
  );
  if (eras.length > 0) console.log(`\n2026-07-28 beside 2025-11-25 (stateless), same server:\n${eras.join('\n')}`);
}

function ratioLine(workload: string, mine: string, theirs: string): string {
  const a = findRow(workload, mine);
  const b = findRow(workload, theirs);
  if (!a || !b) return '';
  const cpu = a.cpu && b.cpu ? `, server CPU per request ${(b.cpu / a.cpu).toFixed(1)}x less` : '';
  return `  ${workload}: ${mine} vs ${theirs}: ${(a.rps / b.rps).toFixed(1)}x the throughput${cpu}`;
}

/** The 2026-07-28 era's cost beside the 2025-11-25 era's on the same server and workload. */
function eraLine(workload: string, modern: string, legacy: string): string {
  const a = findRow(workload, modern);
  const b = findRow(workload, legacy);
  if (!a || !b) return '';
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
  const cpu = a.cpu && b.cpu ? `, server CPU per request ${pct(a.cpu / b.cpu - 1)}` : '';
  return `  ${workload}: ${modern} vs ${legacy}: throughput ${pct(a.rps / b.rps - 1)}${cpu}`;
}

async function printColdStart(): Promise<ColdStartRow[]> {
  const runs = QUICK ? 10 : 30;
  const figures = await coldStart(runs);
  const bare = figures.find((f) => f.impl === 'bare node')!;
  const peers = figures.find((f) => f.impl === 'node + peers')!;
  console.log(`\ncold start over stdio, spawn -> first tools/call answer (${runs} runs each, alternating):`);
  for (const f of figures) {
    const over =
      f === bare
        ? ''
        : `  (+${(f.median - bare.median).toFixed(0)} ms over bare node${f.impl === 'mcpkit' ? `, +${(f.median - peers.median).toFixed(0)} ms over node + peers` : ''})`;
    console.log(
      `  ${f.impl.padEnd(14)} median ${f.median.toFixed(0).padStart(4)} ms   p90 ${f.p90.toFixed(0).padStart(4)} ms   CPU ${f.cpu.toFixed(0).padStart(4)} ms` +
        `${f.overPeers === undefined ? '' : ` (${f.overPeers.toFixed(0)} after the peers)`}` +
        `   page faults ${f.faults}${f.faultsOverPeers === undefined ? '' : ` (${f.faultsOverPeers} after)`}${over}`,
    );
  }
  console.log(
    [
      '  ("node + peers" loads reflect-metadata, class-validator, class-transformer and tsyringe, which any such app imports itself;',
      "   mcpkit runs on tsc's output; every process has Node's compile cache (NODE_COMPILE_CACHE), filled by a first run;",
      "   CPU: the server process's own CPU time when it wrote the answer, steadier than the wall clock on a busy machine;",
      '   "after the peers": from the peers loaded (by a preload, servers/cpu-at-answer.ts) to the answer, steadier still;',
      '   page faults: minor ones, memory touched for the first time, which a VM pays microseconds each for.)',
    ].join('\n'),
  );
  return figures;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
