/**
 * Where a request's CPU goes: each row of the floors table (stateless HTTP tools/call in both eras, the
 * stdio call, 64 in flight) served under load while the server process profiles itself (V8's sampling
 * profiler through node:inspector, started after the warm-up and stopped before the end, so that neither
 * start nor JIT warm-up is in it), then the self time of every sampled function summed by component:
 * mcpkit's folders, each package of node_modules, Node's own modules by area, the garbage collector.
 * Printed as µs per request and share of the process's busy time; the raw profiles are kept for
 * Chrome DevTools or speedscope.
 *
 * Run: `npm run -s build && node dist/bench/profile.js [--rows=http-2025,http-2026,stdio] [--seconds=6]
 * [--impl=mcpkit|floor] [--connections=32] [--out=DIR]`.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { CALL, HEADERS, MODERN_CALL, MODERN_HEADERS } from './requests';
import { startServer, startStdioServer, type Impl } from './measure';
import type { ChildProcess } from 'node:child_process';

const arg = (name: string, fallback: string) => new RegExp(`--${name}=(\\S+)`).exec(process.argv.join(' '))?.[1] ?? fallback;
const ROWS = arg('rows', 'http-2025,http-2026,stdio').split(',');
const SECONDS = Number(arg('seconds', '6'));
const IMPL = arg('impl', 'mcpkit') as Impl;
const OUT = resolve(arg('out', join(tmpdir(), 'mcpkit-profiles')));
/** HTTP connections: 32 as the floors table, or 1 for a profile without the load generator competing for the CPU. */
const CONNECTIONS = Number(arg('connections', '32'));

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Asks the server to start or stop profiling (servers/ipc.ts); resolves on its acknowledgement. */
function profiler(child: ChildProcess, type: 'profile-start' | 'profile-stop', path?: string): Promise<void> {
  return new Promise((done) => {
    const onMessage = (m: { type?: string }) => {
      if (m.type !== `${type}ed`) return;
      child.off('message', onMessage);
      done();
    };
    child.on('message', onMessage);
    child.send({ type, path });
  });
}

/** The component a sampled function belongs to, from its script's URL. */
export function componentOf({ functionName, url }: CallFrame): string {
  if (!url) return functionName.startsWith('(') ? functionName : `(native) ${functionName || 'anonymous'}`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const src = /\/dist\/src\/(.+)\/[^/]+\.js$/.exec(url);
  if (src) return `mcpkit ${src[1]}`;
  if (/\/dist\/src\/[^/]+\.js$/.test(url)) return 'mcpkit (entry)';
  if (url.includes('/dist/bench/')) return 'bench server';
  if (url.startsWith('node:')) {
    const parts = url.slice(5).split('/');
    const area = parts[0] === 'internal' ? parts[1] : parts[0];
    return `node ${area.replace(/\.js$/, '').replace(/^_/, '')}`;
  }
  return url;
}

/** Self time (µs) by component, and the busy total (idle excluded). */
export function attribute(profile: CpuProfile): { byComponent: Map<string, number>; busy: number } {
  const component = new Map<number, string>();
  for (const node of profile.nodes) component.set(node.id, componentOf(node.callFrame));
  const byComponent = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const name = component.get(id)!;
    const delta = profile.timeDeltas[i] ?? 0;
    if (name === '(idle)') return;
    busy += delta;
    byComponent.set(name, (byComponent.get(name) ?? 0) + delta);
  });
  return { byComponent, busy };
}

function print(row: string, profile: CpuProfile, requests: number, path: string): void {
  const { byComponent, busy } = attribute(profile);
  const lines = [`## ${row} (${IMPL}): ${requests} requests profiled, ${(busy / requests).toFixed(1)} µs busy a request`, ''];
  lines.push('| component | µs/req | share |', '|---|---|---|');
  for (const [name, micros] of [...byComponent].sort((a, b) => b[1] - a[1])) {
    if (micros / busy < 0.003) continue;
    lines.push(`| ${name} | ${(micros / requests).toFixed(2)} | ${((100 * micros) / busy).toFixed(1)}% |`);
  }
  lines.push('', `profile: ${path}`, '');
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function httpRow(row: string, modern: boolean): Promise<void> {
  const server = await startServer(IMPL, { MODE: 'stateless', TOOLS: '1' });
  try {
    const headers = modern ? MODERN_HEADERS : HEADERS;
    const body = modern ? MODERN_CALL : CALL;
    const run = (duration: number) =>
      autocannon({
        url: `http://127.0.0.1:${server.port}/mcp`,
        method: 'POST',
        headers,
        body,
        connections: CONNECTIONS,
        duration,
        timeout: 20,
      });
    await run(3);
    const path = join(OUT, `${row}-${IMPL}.cpuprofile`);
    await profiler(server.child, 'profile-start');
    const result = await run(SECONDS);
    await profiler(server.child, 'profile-stop', path);
    const bad = result.non2xx + result.errors + result.timeouts;
    if (bad) process.stdout.write(`(${bad} requests failed)\n`);
    print(row, JSON.parse(readFileSync(path, 'utf8')) as CpuProfile, result.requests.total, path);
  } finally {
    await server.stop();
  }
}

/** The stdio row: 64 tools/call in flight, answers read as they come, the next requests written once per read. */
async function stdioRow(row: string): Promise<void> {
  const child = startStdioServer(IMPL, { TOOLS: '1' });
  let buffer = '';
  let outgoing = '';
  let answered = 0;
  let onAnswer: () => void = () => undefined;
  let nextId = 1;
  const request = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}\n`;
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let start = 0;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n', start)) {
      start = nl + 1;
      answered++;
      onAnswer();
    }
    buffer = buffer.slice(start);
    if (outgoing) {
      child.stdin!.write(outgoing);
      outgoing = '';
    }
  });
  const pipeline = (total: number) =>
    new Promise<void>((done) => {
      const last = nextId + total;
      answered = 0;
      onAnswer = () => {
        if (nextId < last) outgoing += request(nextId++);
        if (answered === total) done();
      };
      for (let i = 0; i < 64; i++) outgoing += request(nextId++);
      child.stdin!.write(outgoing);
      outgoing = '';
    });
  const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } };
  await new Promise<void>((done) => {
    onAnswer = done;
    child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init })}\n`);
  });
  child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  await pipeline(20_000);
  const path = join(OUT, `${row}-${IMPL}.cpuprofile`);
  await profiler(child, 'profile-start');
  const total = 100_000;
  await pipeline(total);
  await profiler(child, 'profile-stop', path);
  child.kill('SIGKILL');
  print(row, JSON.parse(readFileSync(path, 'utf8')) as CpuProfile, total, path);
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  process.stdout.write(`# CPU profiles, ${new Date().toISOString()}, Node ${process.version}\n\n`);
  for (const row of ROWS) {
    if (row === 'http-2025') await httpRow(row, false);
    else if (row === 'http-2026') await httpRow(row, true);
    else if (row === 'stdio') await stdioRow(row);
    else throw new Error(`unknown row ${row}`);
  }
}

void main();
