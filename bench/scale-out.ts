/**
 * Scaling out on Redis, measured: the same workloads served by one instance with in-memory state
 * and by two instances sharing a private Redis, both behind the same round-robin proxy.
 *  - tools/call with sessions over HTTP, 32 connections;
 *  - tasks created (tools/call as a task) and completed (tasks/result), 32 flows at a time.
 * Run: `npm run bench:scale-out` (needs redis-server; `npm test` installs it). Prints figures.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { PrivateRedis } from '../test/helpers/redis-server';
import { RoundRobinProxy } from '../test/helpers/round-robin-proxy';

const QUICK = process.argv.includes('--quick');
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

function start(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(join(__dirname, 'servers', 'mcpkit-server.js'), [], {
    env: { ...process.env, MODE: 'sessions', TOOLS: '1', TASKS: '1', ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port }));
  });
}

async function rpc(
  url: string,
  headers: Record<string, string>,
  body: object,
): Promise<{ sessionId: string | null; json: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', ...body }) });
  const text = await res.text();
  const line = text.startsWith('{')
    ? text
    : (text
        .split('\n')
        .find((l) => l.startsWith('data: {'))
        ?.slice(6) ?? '{}');
  return { sessionId: res.headers.get('mcp-session-id'), json: JSON.parse(line) as Record<string, unknown> };
}

async function measure(label: string, backends: number[]): Promise<string[]> {
  const proxy = new RoundRobinProxy(backends);
  const url = await proxy.start();
  const init = await rpc(url, HEADERS, {
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  const headers = { ...HEADERS, 'mcp-session-id': init.sessionId! };
  await rpc(url, headers, { method: 'notifications/initialized' });
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } });
  await autocannon({ url, method: 'POST', headers, body, connections: 32, duration: 1 });
  const calls = await autocannon({ url, method: 'POST', headers, body, connections: 32, duration: QUICK ? 3 : 8 });

  const total = QUICK ? 1_000 : 4_000;
  let next = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < total) {
        const i = next++;
        const created = await rpc(url, headers, {
          id: `c${i}`,
          method: 'tools/call',
          params: { name: 'work', arguments: { text: String(i) }, task: { ttl: 60_000 } },
        });
        const taskId = (created.json.result as { task?: { taskId: string } } | undefined)?.task?.taskId;
        const done = taskId ? await rpc(url, headers, { id: `r${i}`, method: 'tasks/result', params: { taskId } }) : undefined;
        if ((done?.json.result as { content?: { text: string }[] } | undefined)?.content?.[0]?.text !== `done ${i}`) {
          if (failed++ === 0) console.error(`first failure: ${JSON.stringify(done?.json ?? created.json).slice(0, 300)}`);
        }
      }
    }),
  );
  const taskRate = total / ((performance.now() - t0) / 1000);
  await proxy.stop();
  const bad = calls.non2xx + calls.errors + calls.timeouts;
  return [
    `${'tools/call (sessions, 32 connections)'.padEnd(40)}${label.padEnd(34)}${calls.requests.average.toFixed(0).padStart(9)} req/s  p50 ${calls.latency.p50} ms  p99 ${calls.latency.p99} ms${bad ? `  ${bad} failed` : ''}`,
    `${`${total} tasks: create + tasks/result`.padEnd(40)}${label.padEnd(34)}${taskRate.toFixed(0).padStart(9)} tasks/s${failed ? `  ${failed} failed` : ''}`,
  ];
}

async function main(): Promise<void> {
  const lines: string[] = [];
  const single = await start({});
  lines.push(...(await measure('1 instance, in-memory', [single.port])));
  single.child.kill('SIGKILL');

  const redis = await PrivateRedis.start();
  const a = await start({ REDIS_URL: redis.url });
  const b = await start({ REDIS_URL: redis.url });
  lines.push(...(await measure('2 instances + Redis, round-robin', [a.port, b.port])));
  a.child.kill('SIGKILL');
  b.child.kill('SIGKILL');
  await redis.stop();

  console.log(
    `\nmcpkit scale-out on Redis — node ${process.version}, ${QUICK ? 3 : 8}s per HTTP run, all behind the same round-robin proxy\n`,
  );
  for (const line of lines.sort()) console.log(line);
  console.log(
    '\n(One 2-core machine runs the load generator, the proxy, the instances and Redis: the figures compare set-ups, not capacity.)',
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
