/**
 * mcpkit's tools/call over stateless HTTP with each telemetry mode, beside the Koa floor without and
 * with the OpenTelemetry SDK's own span and histogram point.
 */
import { join } from 'node:path';
import { httpLoad, isCall, rows, signed } from './measure';
import { CALL, TRACEPARENT } from './requests';

export const TELEMETRY_WORKLOAD = 'tools/call over HTTP (stateless), telemetry';
/**
 * The telemetry modes measured: the server's TELEMETRY (and for full, TELEMETRY_SDK: what stands behind
 * @opentelemetry/api, see mcpkit-server.ts). `floor` marks the three of the floors table, measured in
 * the default run too.
 */
export const TELEMETRY_MODES: readonly { label: string; env: Record<string, string>; floor?: boolean }[] = [
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
export const KOA_TRACED_FLOORS: readonly { env: Record<string, string>; headers: Record<string, string>; label: string }[] = [
  { env: {}, headers: TRACEPARENT, label: 'floor: Koa by hand' },
  { env: { TELEMETRY_SDK: 'bare' }, headers: TRACEPARENT, label: 'floor: Koa by hand, SDK span' },
];

/**
 * The same stateless tools/call with each telemetry mode, alternating, `runs` times (`floorsOnly`: the
 * three modes of the floors table only), and the Koa floor without and with the SDK's span.
 */
export async function telemetryLoad(runs: number, floorsOnly = false): Promise<void> {
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
export function telemetryLines(): string[] {
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
