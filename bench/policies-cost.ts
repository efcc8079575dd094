import 'reflect-metadata';
import { fork, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import {
  Cache,
  type CanActivate,
  Concurrency,
  IDEMPOTENCY_KEY_META,
  Idempotent,
  McpApplication,
  McpModule,
  type Middleware,
  RateLimit,
  Timeout,
  Tool,
  UseGuards,
  UseMiddleware,
} from '../src';
import { internalsOf } from '../src/kernel/app-internals';
import { RedisPolicyStore } from '../src/redis';
import { type Row, rows } from './measure';

/*
 * What each call policy (and a guard, and a middleware: the other steps a handler's pipeline may hold)
 * costs one stateless tools/call, in process: the echo request handed to the
 * engine as the HTTP transport hands it, awaited, `calls` times in a row, one policy per tool. Off is
 * the same tool without policies. Each case runs in a process of its own, the cases alternating; a
 * process warms up, measures `BATCHES` batches and keeps its median. CPU µs/call is this process's own
 * (user + system): with Redis, the Redis server's work and the round trips are in the wall time only.
 *
 *   npm run -s build && node dist/bench/policies-cost.js [--runs=3] [--quick]
 */

class EchoInput {
  @IsString() text!: string;
}

@injectable()
class Allow implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

const passThrough: Middleware = (_invocation, next) => next();

@injectable()
class GuardedEcho {
  @Tool({ description: 'no policy' })
  off(input: EchoInput) {
    return input.text;
  }
  @RateLimit({ limit: 1_000_000_000, windowMs: 1_000 })
  @Tool({ description: 'rate limited (never refused)' })
  rateLimit(input: EchoInput) {
    return input.text;
  }
  @Idempotent()
  @Tool({ description: 'idempotent' })
  idempotent(input: EchoInput) {
    return input.text;
  }
  @Cache({ ttlMs: 3_600_000 })
  @Tool({ description: 'cached', annotations: { readOnlyHint: true } })
  cache(input: EchoInput) {
    return input.text;
  }
  @Timeout(60_000)
  @Tool({ description: 'with a timeout' })
  timeout(input: EchoInput) {
    return input.text;
  }
  @Concurrency({ max: 1_000_000 })
  @Tool({ description: 'concurrency limited (never full)' })
  concurrency(input: EchoInput) {
    return input.text;
  }
  @UseGuards(Allow)
  @Tool({ description: 'behind a guard that lets everyone in' })
  guarded(input: EchoInput) {
    return input.text;
  }
  @UseMiddleware(passThrough)
  @Tool({ description: 'with a middleware that only calls next()' })
  withMiddleware(input: EchoInput) {
    return input.text;
  }
}

@McpModule({ server: { name: 'policies-cost', version: '1.0.0' }, providers: [GuardedEcho, Allow] })
class GuardedModule {}

/** One measured case: the tool called, how its key is sent, and where the policy keeps its state. */
interface Case {
  label: string;
  tool: keyof GuardedEcho;
  store: 'memory' | 'redis';
  /** Idempotency: one key for every call (a replay after the first) or a new key each call (each runs). */
  key?: 'same' | 'new';
  /** The caller is authenticated (a guard runs only for one). */
  auth?: boolean;
}

const CASES: Case[] = [
  { label: 'off', tool: 'off', store: 'memory' },
  { label: 'rate limit, memory', tool: 'rateLimit', store: 'memory' },
  { label: 'idempotent (first run), memory', tool: 'idempotent', store: 'memory', key: 'new' },
  { label: 'idempotent (replay), memory', tool: 'idempotent', store: 'memory', key: 'same' },
  { label: 'cache (hit), memory', tool: 'cache', store: 'memory' },
  { label: 'timeout', tool: 'timeout', store: 'memory' },
  { label: 'concurrency, memory', tool: 'concurrency', store: 'memory' },
  { label: 'off, authenticated', tool: 'off', store: 'memory', auth: true },
  { label: 'guard, authenticated', tool: 'guarded', store: 'memory', auth: true },
  { label: 'middleware', tool: 'withMiddleware', store: 'memory' },
  { label: 'rate limit, Redis', tool: 'rateLimit', store: 'redis' },
  { label: 'idempotent (first run), Redis', tool: 'idempotent', store: 'redis', key: 'new' },
  { label: 'idempotent (replay), Redis', tool: 'idempotent', store: 'redis', key: 'same' },
  { label: 'cache (hit), Redis', tool: 'cache', store: 'redis' },
  { label: 'concurrency, Redis', tool: 'concurrency', store: 'redis' },
];

export const POLICIES_WORKLOAD = 'policy cost, one tools/call in process';
const QUICK = process.argv.includes('--quick');
const BATCHES = 3;
const PEER = { protocolVersion: '2025-11-25', clientCapabilities: {} };
const EXTRA = {
  headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
  network: { peerAddress: '127.0.0.1' },
};
const AUTH = { principal: 'p:bench', subject: 'bench', scopes: [] };

/** A loop of calls through the engine: CPU and wall µs per call. */
async function engineLoop(c: Case, redis: string | undefined): Promise<(calls: number) => Promise<{ cpu: number; wall: number }>> {
  const app = await McpApplication.create(GuardedModule, {
    logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
    ...(c.store === 'redis' ? { policies: { store: new RedisPolicyStore(redis!, { keyPrefix: `bench${process.pid}:` }) } } : {}),
  });
  const { engine } = internalsOf(app);
  const sink = () => Promise.resolve();
  let n = 0;
  return async (calls) => {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < calls; i++) {
      const key = c.key === 'same' ? 'k' : `k${++n}`;
      const params = { name: c.tool, arguments: { text: 'hello' }, ...(c.key ? { _meta: { [IDEMPOTENCY_KEY_META]: key } } : {}) };
      const extra = c.auth ? { ...EXTRA, auth: AUTH } : { ...EXTRA };
      const served = engine.serveStateless({ jsonrpc: '2.0', id: i, method: 'tools/call', params }, extra, PEER, sink);
      const response = await served.response;
      served.close();
      if (i === 0 && !JSON.stringify(response).includes('"text":"hello"'))
        throw new Error(`unexpected answer: ${JSON.stringify(response)}`);
    }
    const wall = ((performance.now() - started) * 1000) / calls;
    const used = process.cpuUsage(cpuBefore);
    return { cpu: (used.user + used.system) / calls, wall };
  };
}

async function child(index: number, redis: string | undefined): Promise<void> {
  const c = CASES[index];
  const calls = (c.store === 'redis' ? 2_000 : 20_000) / (QUICK ? 4 : 1);
  const loop = await engineLoop(c, redis);
  await loop(calls / 2);
  const batches: { cpu: number; wall: number }[] = [];
  for (let b = 0; b < BATCHES; b++) batches.push(await loop(calls));
  process.send!({ cpu: median(batches.map((b) => b.cpu)), wall: median(batches.map((b) => b.wall)) });
  process.exit(0);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function measure(index: number, redis: string | undefined): Promise<{ cpu: number; wall: number }> {
  return new Promise((resolve, reject) => {
    const proc = fork(__filename, [`--child=${index}`, ...(redis ? [`--redis=${redis}`] : []), ...process.argv.slice(2)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    proc.once('message', (m: { cpu: number; wall: number }) => resolve(m));
    proc.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`${CASES[index].label} exited with ${code}`))));
  });
}

/** A private redis-server on a socket in a temporary folder, or undefined when none is installed. */
async function privateRedis(): Promise<{ socket: string; stop: () => void } | undefined> {
  if (spawnSync('redis-server', ['--version']).status !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-redis-'));
  const socket = join(dir, 'redis.sock');
  const child = spawn(
    'redis-server',
    ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/ready to accept connections/i.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return {
    socket,
    stop: () => {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Measures every case `runs` times, alternating; adds a row per case to the run's rows; prints each beside off. */
export async function policiesCost(runs: number): Promise<void> {
  const redis = await privateRedis();
  const cases = CASES.map((c, index) => ({ c, index })).filter(({ c }) => c.store === 'memory' || redis);
  const figures = new Map<number, { cpu: number; wall: number }[]>(cases.map(({ index }) => [index, []]));
  try {
    for (let r = 0; r < runs; r++) for (const { index } of cases) figures.get(index)!.push(await measure(index, redis?.socket));
  } finally {
    redis?.stop();
  }
  const measured = cases.map(({ c, index }) => {
    const all = figures.get(index)!;
    return { c, cpu: median(all.map((f) => f.cpu)), wall: median(all.map((f) => f.wall)) };
  });
  const off = measured.find((m) => m.c.label === 'off')!;
  const offAuthenticated = measured.find((m) => m.c.label === 'off, authenticated') ?? off;
  // A guard runs for authenticated callers only: it is measured over the same call made by one.
  const baseOf = (m: (typeof measured)[number]) => (m.c.auth ? offAuthenticated : off);
  console.log(`\ncall policies: one stateless tools/call in process, CPU and wall time per call (median of ${runs} processes)`);
  for (const m of measured) {
    const base = baseOf(m);
    const over =
      m === base ? '' : `   +${(m.cpu - base.cpu).toFixed(1)} µs CPU, +${(m.wall - base.wall).toFixed(1)} µs wall over ${base.c.label}`;
    console.log(`  ${m.c.label.padEnd(34)} ${m.cpu.toFixed(1).padStart(7)} µs CPU ${m.wall.toFixed(1).padStart(8)} µs wall${over}`);
    const row: Row = {
      workload: POLICIES_WORKLOAD,
      impl: `mcpkit, ${m.c.label}`,
      rps: 1e6 / m.wall,
      p50: NaN,
      p99: NaN,
      cpu: m.cpu,
      note: `wall ${m.wall.toFixed(1)} µs/call${m === base ? '' : `, +${(m.cpu - base.cpu).toFixed(1)} µs CPU over ${base.c.label}`}`,
    };
    rows.push(row);
  }
  if (!redis) console.log('  (no redis-server installed: the Redis cases were not run)');
}

function fail(error: unknown): never {
  console.error(error);
  process.exit(1);
}

const own = /--child=(\d+)/.exec(process.argv.join(' '))?.[1];
if (own !== undefined) child(Number(own), /--redis=(\S+)/.exec(process.argv.join(' '))?.[1]).catch(fail);
else if (require.main === module) policiesCost(Number(/--runs=(\d+)/.exec(process.argv.join(' '))?.[1] ?? 3)).catch(fail);
