/**
 * The floors table: each mcpkit figure beside its floor (the same work done by hand, or the reference it
 * is budgeted against) and the official SDKs' (1.x and 2.x), measured in the same run. A row whose
 * figures were not measured (see --only) is left out. Budgets are targets for the code, printed and
 * written to the results file, never asserted.
 */
import type { ColdStartRow } from './coldstart';
import { MEMORY_WORKLOAD, SOAK_BUDGET_BYTES, SOAK_WORKLOAD, SSE_BUDGET_BYTES, SSE_CASES, SSE_WORKLOAD } from './held';
import { POLICIES_WORKLOAD } from './policies-cost';
import { CALL_WORKLOAD, findRow, LIST_WORKLOAD, QUICK, signed, STDIO_CALL, STDIO_FLOOR } from './measure';
import { KOA_TRACED_FLOORS, TELEMETRY_WORKLOAD } from './telemetry-load';

/** The stateless HTTP call's floor: the same request answered by hand with Koa (servers/koa-floor-server.ts). */
export const KOA_FLOOR = { env: {}, headers: {}, label: 'floor: Koa by hand' };
/** The same floor answering the 2026-07-28 call: what that revision costs any server on Node. */
export const KOA_MODERN_FLOOR = { env: {}, headers: {}, label: 'floor: Koa by hand, 2026-07-28' };

/** One row of the floors table: figures as measured, `digits` for printing them. */
export interface FloorLine {
  row: string;
  /** What the floor is (Koa, loop, peers), when the row has one. */
  floorName?: string;
  floor?: number;
  sdk1?: number;
  sdk2?: number;
  mcpkit: number;
  digits: number;
  /** mcpkit against the figure its budget reads (the floor, the SDK 2.x, a byte budget), as printed. */
  ratio: string;
  budget: string;
  /** Undefined for a row printed with no budget. */
  within?: boolean;
}

export function floorLines(cold: ColdStartRow[] | undefined): FloorLine[] {
  const lines: FloorLine[] = [];
  const times = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

  const koa = findRow(CALL_WORKLOAD, KOA_FLOOR.label);
  const legacy = findRow(CALL_WORKLOAD, 'mcpkit (stateless)');
  const sdk1 = findRow(CALL_WORKLOAD, 'sdk 1.x (stateless)');
  const sdk2 = findRow(CALL_WORKLOAD, 'sdk 2.x (stateless)');
  if (koa?.cpu && legacy?.cpu) {
    lines.push({
      row: 'stateless HTTP tools/call, server CPU µs/req',
      floorName: 'Koa',
      floor: koa.cpu,
      sdk1: sdk1?.cpu,
      sdk2: sdk2?.cpu,
      mcpkit: legacy.cpu,
      digits: 1,
      ratio: times(legacy.cpu, koa.cpu),
      budget: '<= 1.25x Koa',
      within: legacy.cpu / koa.cpu <= 1.25,
    });
  }
  if (legacy && sdk2) {
    lines.push({
      row: 'stateless HTTP tools/call, req/s',
      floorName: 'Koa',
      floor: koa?.rps,
      sdk1: sdk1?.rps,
      sdk2: sdk2.rps,
      mcpkit: legacy.rps,
      digits: 0,
      ratio: `${times(legacy.rps, sdk2.rps)} 2.x`,
      budget: '>= 5x SDK 2.x',
      within: legacy.rps / sdk2.rps >= 5,
    });
  }
  const modern = findRow(CALL_WORKLOAD, 'mcpkit (modern)');
  const sdk2Modern = findRow(CALL_WORKLOAD, 'sdk 2.x (modern)');
  const koaModern = findRow(CALL_WORKLOAD, KOA_MODERN_FLOOR.label);
  if (koaModern?.cpu && modern?.cpu) {
    lines.push({
      row: 'the same call in 2026-07-28, server CPU µs/req',
      floorName: 'Koa 2026',
      floor: koaModern.cpu,
      sdk2: sdk2Modern?.cpu,
      mcpkit: modern.cpu,
      digits: 1,
      ratio: times(modern.cpu, koaModern.cpu),
      budget: '<= 1.25x Koa 2026',
      within: modern.cpu / koaModern.cpu <= 1.25,
    });
  }
  if (modern && sdk2Modern) {
    lines.push({
      row: 'the same call in 2026-07-28, req/s',
      floorName: 'Koa 2026',
      floor: koaModern?.rps,
      sdk2: sdk2Modern.rps,
      mcpkit: modern.rps,
      digits: 0,
      ratio: `${times(modern.rps, sdk2Modern.rps)} 2.x`,
      budget: '>= 5x SDK 2.x',
      within: modern.rps / sdk2Modern.rps >= 5,
    });
  }

  const list = findRow(LIST_WORKLOAD, 'mcpkit (stateless)');
  const list2 = findRow(LIST_WORKLOAD, 'sdk 2.x (stateless)');
  if (list && list2) {
    lines.push({
      row: 'tools/list of 1,000 tools over HTTP, req/s',
      sdk1: findRow(LIST_WORKLOAD, 'sdk 1.x (stateless)')?.rps,
      sdk2: list2.rps,
      mcpkit: list.rps,
      digits: 0,
      ratio: `${times(list.rps, list2.rps)} 2.x`,
      budget: '>= 5x SDK 2.x',
      within: list.rps / list2.rps >= 5,
    });
  }

  const loop = findRow(STDIO_CALL, STDIO_FLOOR);
  const stdio = findRow(STDIO_CALL, 'mcpkit');
  if (loop && stdio) {
    const share = (stdio.rps / loop.rps) * 100;
    lines.push({
      row: 'stdio tools/call, 64 in flight, msg/s',
      floorName: 'loop',
      floor: loop.rps,
      sdk1: findRow(STDIO_CALL, 'sdk 1.x')?.rps,
      sdk2: findRow(STDIO_CALL, 'sdk 2.x')?.rps,
      mcpkit: stdio.rps,
      digits: 0,
      ratio: `${share.toFixed(0)}%`,
      budget: '>= 70% of loop',
      within: share >= 70,
    });
  }

  const session = findRow(MEMORY_WORKLOAD, 'mcpkit')?.value;
  if (session !== undefined) {
    const kb = (bytes: number | undefined) => (bytes === undefined ? undefined : bytes / 1024);
    lines.push({
      row: '2,000 HTTP sessions held, heap KB/session',
      sdk1: kb(findRow(MEMORY_WORKLOAD, 'sdk 1.x')?.value),
      sdk2: kb(findRow(MEMORY_WORKLOAD, 'sdk 2.x')?.value),
      mcpkit: session / 1024,
      digits: 2,
      ratio: `${(session / 1024 / 2).toFixed(2)}x`,
      budget: '<= 2 KB',
      within: session / 1024 <= 2,
    });
  }

  const peers = cold?.find((f) => f.impl === 'node + peers');
  const start = cold?.find((f) => f.impl === 'mcpkit');
  if (peers && start) {
    const extra = start.median - peers.median;
    lines.push({
      row: 'stdio server, spawn -> first answer, ms (median)',
      floorName: 'peers',
      floor: peers.median,
      sdk1: cold?.find((f) => f.impl === 'sdk 1.x')?.median,
      sdk2: cold?.find((f) => f.impl === 'sdk 2.x')?.median,
      mcpkit: start.median,
      digits: 0,
      ratio: signed(extra, ' ms', 0),
      budget: '<= +30 ms',
      within: extra <= 30,
    });
  }

  for (const era of ['2025-11-25', '2026-07-28']) {
    const grown = findRow(SOAK_WORKLOAD, `mcpkit (${era})`)?.value;
    if (grown === undefined) continue;
    lines.push({
      row: `heap growth over 100,000 calls, ${era}, KB`,
      mcpkit: grown / 1024,
      digits: 0,
      ratio: `${(grown / SOAK_BUDGET_BYTES).toFixed(2)}x`,
      budget: `<= ${SOAK_BUDGET_BYTES / 1024} KB`,
      within: grown <= SOAK_BUDGET_BYTES,
    });
  }

  const cost = (label: string) => findRow(POLICIES_WORKLOAD, `mcpkit, ${label}`)?.cpu;
  for (const [what, label, base] of [
    ['a guard', 'guard, authenticated', 'off, authenticated'],
    ['a rate limit (in memory)', 'rate limit, memory', 'off'],
    ['a middleware', 'middleware', 'off'],
  ] as const) {
    const on = cost(label);
    const off = cost(base);
    if (on === undefined || off === undefined) continue;
    lines.push({
      row: `${what} on a call, in process, CPU µs over none`,
      floorName: base,
      floor: off,
      mcpkit: on,
      digits: 1,
      ratio: signed(on - off, ' µs'),
      budget: '<= +3 µs',
      within: on - off <= 3,
    });
  }

  for (const { label, short } of Object.values(SSE_CASES)) {
    const held = findRow(SSE_WORKLOAD, `mcpkit, ${label}`)?.value;
    if (held === undefined) continue;
    lines.push({
      row: `SSE events held by 1 session, ${short}, MB`,
      mcpkit: held / 1024 / 1024,
      digits: 2,
      ratio: `${(held / SSE_BUDGET_BYTES).toFixed(2)}x`,
      budget: `<= ${(SSE_BUDGET_BYTES / 1024 / 1024).toFixed(1)} MB`,
      within: held <= SSE_BUDGET_BYTES,
    });
  }

  if (modern?.cpu && legacy?.cpu) {
    lines.push({
      row: '2026-07-28 vs 2025-11-25 stateless call, CPU µs/req',
      floorName: koa?.cpu && koaModern?.cpu ? `legacy (Koa: ${times(koaModern.cpu, koa.cpu)})` : 'legacy',
      floor: legacy.cpu,
      mcpkit: modern.cpu,
      digits: 1,
      ratio: times(modern.cpu, legacy.cpu),
      budget: '<= 1.10x',
      within: modern.cpu / legacy.cpu <= 1.1,
    });
  }

  lines.push(...telemetryLines());
  return lines;
}

function telemetryLines(): FloorLine[] {
  const lines: FloorLine[] = [];
  const telemetry = (mode: string) => findRow(TELEMETRY_WORKLOAD, `mcpkit, ${mode}`)?.cpu;
  const off = telemetry('off');
  const noSdk = telemetry('full, no SDK');
  if (off && noSdk) {
    const extra = (noSdk / off - 1) * 100;
    lines.push({
      row: 'tracing on, no OTel SDK, vs off, CPU µs/req',
      floorName: 'off',
      floor: off,
      mcpkit: noSdk,
      digits: 1,
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
      floorName: 'off',
      floor: off,
      mcpkit: bare,
      digits: 1,
      ratio: signed(extra, ' µs'),
      budget: '<= +10 µs',
      within: extra <= 10,
    });
    // The same span and histogram point made by hand on the Koa floor: the SDK's own cost over HTTP.
    const [koa, koaSpan] = KOA_TRACED_FLOORS.map((f) => findRow(TELEMETRY_WORKLOAD, f.label)?.cpu);
    if (koa && koaSpan) {
      const own = extra - (koaSpan - koa);
      lines.push({
        row: "the same, beyond the SDK's own cost (Koa + span), µs/req",
        floorName: 'Koa + span',
        floor: koaSpan - koa,
        mcpkit: extra,
        digits: 1,
        ratio: signed(own, ' µs'),
        budget: '<= +10 µs',
        within: own <= 10,
      });
    }
  }
  return lines;
}

/** A figure as printed: '-' when not measured. */
export function figure(n: number | undefined, digits: number): string {
  return n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits);
}

/** The cells of a line, in the table's order (row, floor, sdk 1.x, sdk 2.x, mcpkit, ratio, budget, within). */
export function floorCells(l: FloorLine): string[] {
  const floor = l.floor === undefined ? '-' : `${figure(l.floor, l.digits)}${l.floorName ? ` ${l.floorName}` : ''}`;
  const within = l.within === undefined ? '-' : l.within ? 'yes' : 'NO';
  return [l.row, floor, figure(l.sdk1, l.digits), figure(l.sdk2, l.digits), figure(l.mcpkit, l.digits), l.ratio, l.budget, within];
}

export const FLOOR_HEADER = ['row', 'floor', 'sdk 1.x', 'sdk 2.x', 'mcpkit', 'ratio', 'budget', 'within'];

export function printFloors(lines: FloorLine[]): void {
  if (lines.length === 0) return;
  console.log(
    `\nfloors: mcpkit beside the same work done by hand and the official SDKs 1.x and 2.x, this run${QUICK ? ' (--quick)' : ''}\n`,
  );
  const widths = [52, 24, 10, 10, 10, 12, 16, 8];
  const row = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('');
  console.log(row(FLOOR_HEADER));
  for (const l of lines) console.log(row(floorCells(l)));
  console.log(
    [
      '(ratio: mcpkit over the floor, over the SDK 2.x ("2.x"), or over the budget (session heap, SSE events). The floors are',
      ' servers/koa-floor-server.ts, servers/stdio-floor-server.ts and servers/peers-server.ts; the SSE budget is',
      " InMemoryEventStore's default maxBytesPerSession. Timings on a shared machine are noisy: --only=floors --runs=N",
      ' alternates the timed rows N times and keeps medians. Nothing here is asserted.)',
    ].join('\n'),
  );
}
