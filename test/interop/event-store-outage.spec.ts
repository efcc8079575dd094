import { HTTP_FIXTURE } from '../helpers/paths';
import { PrivateRedis } from '../helpers/redis-server';
import { SseReader } from '../helpers/sse-client';
import { spawnHttpServer } from '../helpers/spawn-server';
import { waitFor } from '../helpers/wait-for';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

/** Redis (the event store of a scaled-out server) going away while an answer streams. */
describe('event store outage mid-stream', () => {
  let redis: PrivateRedis;
  let server: Awaited<ReturnType<typeof spawnHttpServer>>;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    server = await spawnHttpServer(HTTP_FIXTURE, { REDIS_URL: redis.url, REDIS_PREFIX: 'outage:' });
  }, 60_000);
  afterAll(async () => {
    await server.stop();
    // PrivateRedis.stop() waits forever for a process down() already killed: bring it back first.
    await redis.up();
    await redis.stop();
  });

  async function session(): Promise<string> {
    const init = await fetch(server.url, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'outage', version: '1' } },
      }),
    });
    await init.text();
    return init.headers.get('mcp-session-id')!;
  }

  it('ends the stream with a -32603 error naming the event store, logs it once, and keeps serving', async () => {
    const streaming = await session();
    const bystander = await session();
    const reader = await SseReader.open(server.url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': streaming },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'reindex', arguments: { batches: 40, delayMs: 50 }, _meta: { progressToken: 'p' } },
      }),
    });
    await reader.waitFor((r) => r.messages.some((m) => m.method === 'notifications/progress'));
    await redis.down();

    await reader.finished();
    expect(reader.messages.at(-1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: expect.stringMatching(/^The event store is unavailable/) },
    });
    // The handler runs on after its stream broke; the process must outlive it. Its id stays in use until it ends.
    const reuse = async () => {
      const res = await fetch(server.url, {
        method: 'POST',
        headers: { ...HEADERS, 'mcp-session-id': streaming },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
    };
    expect(await reuse()).toMatchObject({ error: { code: -32600, message: 'Request id 1 is already in use' } });
    await waitFor(async () => (await reuse()).result, { timeoutMs: 20_000, what: 'the handler of request 1 to end' });
    expect(server.child.exitCode).toBeNull();
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': bystander },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'count', arguments: {} } }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: expect.stringContaining('count') }] },
    });
    // Logged once: the request's later messages are dropped, not rerouted to (and failing on) the standalone stream.
    expect(server.stderr().match(/SSE stream \w+ of session \w+ ended/g)).toHaveLength(1);
  }, 30_000);
});
