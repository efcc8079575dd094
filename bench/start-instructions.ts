import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { cachegrindArgs, instructionsIn } from './valgrind';

/**
 * The start of a stdio server counted in instructions, not timed: on a shared machine the wall clock and
 * even the CPU time of a ~0.3 s start move 10-50% from run to run (bench/coldstart.ts shows it), while the
 * instructions a process runs, counted by valgrind, repeat to within ~0.1%. Each server (as in coldstart.ts)
 * gets the same three messages on a pipe and ends the moment it writes its answer to the first tools/call
 * (servers/exit-at-answer.ts), so the count is spawn -> answer. V8 runs with --predictable (its background
 * compiling and marking on the main thread, counted the same way each run) and young generations of 64 MB
 * (no scavenge moves with an allocation here or there). No compile cache: each process compiles what it
 * loads, the same work on every run.
 *
 * Run: `node dist/bench/start-instructions.js [--runs=N]` (needs valgrind: `apt-get install -y valgrind`;
 * each run of a server takes ~15 s under it). Prints millions of instructions, and each server over the
 * bare Node process and over Node with mcpkit's peers loaded (the start's floor).
 */
const RUNS = Number(/--runs=(\d+)/.exec(process.argv.join(' '))?.[1] ?? 2);
const SERVERS = join(__dirname, 'servers');
const SCRIPT = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } },
]
  .map((m) => `${JSON.stringify(m)}\n`)
  .join('');

interface Server {
  args: string[];
}

function valgrindVersion(): string | undefined {
  try {
    return execFileSync('valgrind', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** Instructions from spawn to the answer to the first tools/call, counted by cachegrind. */
function count({ args }: Server): number {
  const run = spawnSync('valgrind', cachegrindArgs(['-r', join(SERVERS, 'exit-at-answer.js'), ...args]), {
    input: SCRIPT,
    encoding: 'utf8',
    env: { ...process.env, MODE: 'stdio', TOOLS: '1' },
    maxBuffer: 16 << 20,
  });
  if (!run.stdout.includes('"id":2')) throw new Error(`${args.join(' ')} did not answer the tools/call:\n${run.stdout}\n${run.stderr}`);
  const refs = instructionsIn(run.stderr);
  if (refs === undefined) throw new Error(`no instruction count from valgrind:\n${run.stderr}`);
  return refs;
}

function main(): void {
  const version = valgrindVersion();
  if (!version) {
    console.log('start-instructions: valgrind is not installed (apt-get install -y valgrind); nothing measured.');
    return;
  }
  const servers: Record<string, Server> = {
    mcpkit: { args: [join(SERVERS, 'mcpkit-server.js')] },
    'sdk 1.x': { args: [join(SERVERS, 'sdk-server.js')] },
    'sdk 2.x': { args: [join(SERVERS, 'sdk2-server.js')] },
    'bare node': { args: [join(SERVERS, 'bare-server.js')] },
    'node + peers': { args: [join(SERVERS, 'peers-server.js')] },
  };
  const counts: Record<string, number[]> = {};
  for (let i = 0; i < RUNS; i++) for (const [name, server] of Object.entries(servers)) (counts[name] ??= []).push(count(server));
  const least = (name: string) => Math.min(...counts[name]);
  const m = (n: number) => (n / 1e6).toFixed(1);
  console.log(
    `\nstdio start, spawn -> first tools/call answer, in millions of instructions (${version}, Node ${process.version}, ${RUNS} runs each):`,
  );
  for (const name of Object.keys(servers)) {
    const spread = Math.max(...counts[name]) - least(name);
    const over = name === 'bare node' ? '' : `  +${m(least(name) - least('bare node'))} over bare node`;
    const overPeers = name.startsWith('mcpkit') ? `, +${m(least(name) - least('node + peers'))} over node + peers` : '';
    console.log(`  ${name.padEnd(24)} ${m(least(name)).padStart(8)} M (runs within ${m(spread)} M)${over}${overPeers}`);
  }
  console.log(
    '  (V8 --predictable, 64 MB young generation; "node + peers" loads reflect-metadata, class-validator, class-transformer, tsyringe.)',
  );
}

main();
