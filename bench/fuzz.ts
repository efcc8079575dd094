/**
 * A bounded fuzz of the built notes sample, over stdio and Streamable HTTP (child processes, loopback,
 * port 0), with mutated JSON-RPC (see fuzz-inputs.ts). Counts what must never happen:
 *  - crashes: the server process exited;
 *  - unanswered: a request with a valid id got no JSON-RPC answer within the timeout;
 *  - nonJsonRpc: an HTTP answer on the MCP path (or a stdout line) that is not JSON-RPC;
 *  - internalErrors: a -32603 answer, though every input here is the client's doing.
 * Run: `npm run fuzz` (60 s per transport, both at once), `-- --seconds=N`, `-- --messages=N` (per transport), `-- --seed=N`,
 * `-- --only=stdio|http`, `-- --script=path/to/server.js` (default: the built notes sample).
 * Prints a table and exits non-zero when a count is above 0; the first failing inputs of each kind
 * are written to a file named in the output. Runners: fuzz-stdio.ts, fuzz-http.ts; inputs: fuzz-inputs.ts.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { random } from './fuzz-inputs';
import { fuzzHttp } from './fuzz-http';
import { fuzzStdio } from './fuzz-stdio';
import { FAILURE_FIELDS, type FuzzBudget, type FuzzOptions, type FuzzReport, Tally } from './fuzz-tally';

export type { FuzzCounts, FuzzOptions, FuzzReport } from './fuzz-tally';

const SAMPLE = join(__dirname, '..', 'samples', 'notes', 'main.js');

/** Runs the fuzz and returns the counts; the CLI below prints them. */
export async function runFuzz(options: FuzzOptions = {}): Promise<FuzzReport> {
  const messages = options.messages ?? Number.POSITIVE_INFINITY;
  const seconds = options.seconds ?? (options.messages === undefined ? 60 : Number.POSITIVE_INFINITY);
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const script = options.script ?? SAMPLE;
  const timeoutMs = options.answerTimeoutMs ?? 10_000;
  const report: FuzzReport = { seed, transports: {}, failures: [] };
  const budget: FuzzBudget = { messages, until: Date.now() + seconds * 1000 };
  const runs: Promise<void>[] = [];
  if (options.only !== 'http') {
    const tally = new Tally('stdio', report);
    report.transports.stdio = tally.counts;
    runs.push(fuzzStdio(script, random(seed), budget, timeoutMs, tally));
  }
  if (options.only !== 'stdio') {
    const tally = new Tally('http', report);
    report.transports.http = tally.counts;
    runs.push(fuzzHttp(script, random(seed + 1), budget, timeoutMs, tally));
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
  for (const f of report.failures)
    console.log(`- ${f.transport} ${f.kind} [${f.mutation}] ${f.method ?? ''}: ${f.detail} | input: ${f.input.slice(0, 160)}`);
  console.log(`failing inputs (whole): ${file}`);
}

if (require.main === module) {
  const arg = (name: string) => new RegExp(`--${name}=(\\S+)`).exec(process.argv.slice(2).join(' '))?.[1];
  const only = arg('only');
  runFuzz({
    seconds: arg('seconds') === undefined ? undefined : Number(arg('seconds')),
    messages: arg('messages') === undefined ? undefined : Number(arg('messages')),
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
