/**
 * The results file every run of bench/run.ts writes: its figures as JSON and the same as Markdown, with
 * the machine and Node they were read on. A full run (no --only, no --quick) writes
 * bench/results/latest.{json,md}, the figures the README links to; any other run writes
 * bench/results/partial.{json,md} (not committed).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative } from 'node:path';
import type { ColdStartRow } from './coldstart';
import { FLOOR_HEADER, type FloorLine, figure, floorCells } from './floors';
import type { Row } from './measure';

/** bench/results of the repository (this file runs from dist/bench). */
const RESULTS = join(__dirname, '..', '..', 'bench', 'results');

export interface Results {
  rows: Row[];
  floors: FloorLine[];
  coldStart?: ColdStartRow[];
  /** The command line's options, e.g. ['--quick', '--only=call']. */
  options: string[];
  /** Seconds of each timed HTTP run. */
  duration: number;
}

/** Writes the results file; returns the path of its Markdown rendering. */
export function writeResults(results: Results): string {
  const name = results.options.some((o) => o === '--quick' || o.startsWith('--only')) ? 'partial' : 'latest';
  const cpu = cpus();
  const machine = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: `${cpu[0]?.model ?? 'unknown'} (${cpu.length} cores)`,
    platform: `${process.platform} ${process.arch}`,
  };
  mkdirSync(RESULTS, { recursive: true });
  const json = { ...machine, ...results, rows: results.rows.map(finite), coldStart: results.coldStart?.map(finite) };
  writeFileSync(join(RESULTS, `${name}.json`), `${JSON.stringify(json, null, 2)}\n`);
  const md = join(RESULTS, `${name}.md`);
  writeFileSync(md, markdown(machine, results));
  return relative(process.cwd(), md);
}

/** A row without its NaN figures (JSON has no NaN: they would read as null). */
function finite<T extends object>(row: T): T {
  return Object.fromEntries(Object.entries(row).filter(([, v]) => typeof v !== 'number' || Number.isFinite(v))) as T;
}

function markdown(machine: { date: string; node: string; cpu: string; platform: string }, results: Results): string {
  const table = (header: string[], body: string[][]) =>
    [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...body.map((cells) => `| ${cells.join(' | ')} |`)].join('\n');
  const parts = [
    '# Bench results',
    '',
    'Written by `npm run bench` (bench/run.ts); the figures of one run, reported and never asserted. Timings on a',
    'shared machine move by 10-50% from run to run.',
    '',
    `- date: ${machine.date}`,
    `- Node: ${machine.node} (${machine.platform})`,
    `- CPU: ${machine.cpu}`,
    `- options: ${results.options.length > 0 ? results.options.join(' ') : '(none: the full run)'}; ${results.duration} s per timed HTTP run`,
    '',
    '## Floors and budgets',
    '',
    'Each mcpkit figure beside its floor (the same work done by hand: Koa + @koa/router over HTTP, a newline-delimited',
    "JSON loop over stdio, a process loading only mcpkit's peers for the start), and the official SDKs 1.x",
    '(`@modelcontextprotocol/sdk`) and 2.x (`@modelcontextprotocol/server`), measured in the same run.',
    '',
    table(FLOOR_HEADER, results.floors.map(floorCells)),
    '',
    '## Every row',
    '',
    table(
      ['workload', 'implementation', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'note'],
      results.rows.map((r) => [r.workload, r.impl, figure(r.rps, 0), figure(r.p50, 2), figure(r.p99, 2), figure(r.cpu, 1), r.note ?? '']),
    ),
  ];
  if (results.coldStart) {
    parts.push(
      '',
      '## Cold start over stdio (spawn -> first tools/call answer)',
      '',
      table(
        ['process', 'median ms', 'p90 ms', 'CPU ms', 'CPU ms after the peers', 'page faults'],
        results.coldStart.map((c) => [
          c.impl,
          figure(c.median, 0),
          figure(c.p90, 0),
          figure(c.cpu, 0),
          figure(c.overPeers, 0),
          String(c.faults),
        ]),
      ),
    );
  }
  return `${parts.join('\n')}\n`;
}
