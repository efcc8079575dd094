/**
 * Paired comparisons: two (or more) mcpkit servers kept up side by side and loaded in turn, round after round,
 * with the server CPU per stateless tools/call of each round kept; medians. A moment the machine is busy
 * hits both alike, so a few per cent show where `npm run bench`'s separate runs (a fresh server each) move
 * by 10–20% on a shared VM. Nothing is asserted.
 *
 *   node dist/bench/paired.js [--pairs=telemetry|eras|all] [--rounds=8] [--seconds=3]
 *
 * telemetry: telemetry off beside 'full' with no OpenTelemetry SDK (the issue's +3% row);
 * eras: the same call as 2025-11-25 (no session) beside 2026-07-28 (the 1.10x row), and both
 * answered by hand on the Koa floor (servers/koa-floor-server.ts): what the newer revision costs any server.
 * Each request carries a W3C traceparent, as in `npm run bench`'s telemetry rows.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { cpuOf } from './server-cpu';

const SERVERS = join(__dirname, 'servers');
const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const ROUNDS = Number(arg('rounds', '8'));
const SECONDS = Number(arg('seconds', '3'));
const PAIRS = arg('pairs', 'all');

const LEGACY_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
};
const MODERN_HEADERS = { ...LEGACY_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
const call = (meta?: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'hello' }, ...(meta && { _meta: meta }) },
  });
const LEGACY = { headers: LEGACY_HEADERS, body: call() };
const MODERN = {
  headers: MODERN_HEADERS,
  body: call({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  }),
};

interface Contender {
  label: string;
  env: Record<string, string>;
  request: { headers: Record<string, string>; body: string };
  /** The server script in bench/servers (default mcpkit's). */
  script?: string;
  /** The label of the contender this one is compared with (default the first). */
  versus?: string;
}

const SETS: Record<string, Contender[]> = {
  telemetry: [
    { label: 'telemetry off', env: {}, request: LEGACY },
    { label: 'telemetry full, no SDK', env: { TELEMETRY: 'full', TELEMETRY_SDK: 'none' }, request: LEGACY },
  ],
  eras: [
    { label: '2025-11-25 stateless', env: {}, request: LEGACY },
    { label: '2026-07-28', env: {}, request: MODERN },
    { label: 'Koa floor, 2025-11-25', env: {}, request: LEGACY, script: 'koa-floor-server.js' },
    { label: 'Koa floor, 2026-07-28', env: {}, request: MODERN, script: 'koa-floor-server.js', versus: 'Koa floor, 2025-11-25' },
  ],
};

interface Running extends Contender {
  child: ChildProcess;
  port: number;
  micros: number[];
}

function start(contender: Contender): Promise<Running> {
  const child = fork(join(SERVERS, contender.script ?? 'mcpkit-server.js'), [], {
    env: { ...process.env, MODE: 'stateless', TOOLS: '1', ...contender.env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${contender.label}: the server exited (${code}) before it was ready`)));
    child.on('message', (m: { type?: string; port?: number }) => {
      if (m.type === 'ready') resolve({ ...contender, child, port: m.port!, micros: [] });
    });
  });
}

async function load(server: Running, seconds: number): Promise<number> {
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}/mcp`,
    method: 'POST',
    ...server.request,
    connections: 32,
    duration: seconds,
  });
  if (result.non2xx || result.errors) throw new Error(`${server.label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.total;
}

async function compare(name: string, contenders: Contender[]): Promise<void> {
  const servers: Running[] = [];
  try {
    for (const contender of contenders) servers.push(await start(contender));
    for (const server of servers) await load(server, 2); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of servers) {
        const before = await cpuOf(server.child);
        const requests = await load(server, SECONDS);
        server.micros.push(((await cpuOf(server.child)) - before) / Math.max(1, requests));
      }
    }
  } finally {
    for (const server of servers) server.child.kill('SIGKILL');
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`\n${name}: server CPU µs per stateless tools/call, ${ROUNDS} rounds of ${SECONDS} s, servers loaded in turn`);
  for (const server of servers) {
    const m = median(server.micros);
    const against = servers.find((s) => s.label === server.versus) ?? servers[0];
    const base = median(against.micros);
    const versus = server === against ? '' : `  ${(m / base).toFixed(3)}x (${m >= base ? '+' : ''}${((m / base - 1) * 100).toFixed(1)}%)`;
    console.log(
      `  ${server.label.padEnd(24)} median ${m.toFixed(1).padStart(6)}${versus}   rounds ${server.micros.map((x) => x.toFixed(1)).join(' ')}`,
    );
  }
}

async function main(): Promise<void> {
  console.log(`paired comparisons — node ${process.version}`);
  for (const [name, contenders] of Object.entries(SETS)) if (PAIRS === 'all' || PAIRS === name) await compare(name, contenders);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
