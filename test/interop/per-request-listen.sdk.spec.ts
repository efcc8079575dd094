import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { HTTP_FIXTURE } from '../helpers/paths';
import { PrivateRedis } from '../helpers/redis-server';
import { SseReader } from '../helpers/sse-client';
import { spawnHttpServer } from '../helpers/spawn-server';
import { waitFor } from '../helpers/wait-for';

type Server = Awaited<ReturnType<typeof spawnHttpServer>>;
type Frame = {
  id?: unknown;
  method?: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  result?: Record<string, unknown>;
};

const SUB = 'io.modelcontextprotocol/subscriptionId';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

async function perRequestClient(url: string): Promise<Client> {
  const client = new Client(
    { name: 'listen-interop', version: '1.0.0' },
    { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  expect(client.getProtocolEra()).toBe('modern');
  return client;
}

/** A raw listen stream (fetch + SSE), to see every frame as sent. */
async function rawListen(url: string, id: string, notifications: unknown): Promise<SseReader> {
  const body = { jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: ENVELOPE, notifications } };
  const headers = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'subscriptions/listen',
  };
  const reader = await SseReader.open(url, { method: 'POST', headers, body: JSON.stringify(body) });
  await reader.waitFor((r) => r.messages.length >= 1);
  expect((reader.messages[0] as Frame).method).toBe('notifications/subscriptions/acknowledged');
  return reader;
}

const updates = (r: SseReader) =>
  (r.messages as Frame[]).filter((f) => f.method === 'notifications/resources/updated').map((f) => [f.params!.uri, f.params!._meta![SUB]]);

/** The official 2.x client's `listen()` against a compiled mcpkit server. */
describe('subscriptions/listen with the official SDK 2.x client', () => {
  let server: Server;

  beforeEach(async () => {
    server = await spawnHttpServer(HTTP_FIXTURE);
  }, 30_000);
  afterEach(async () => {
    await server.stop();
  });

  it('is acknowledged with the honoured filter, hears tools/list_changed, and closes locally', async () => {
    const client = await perRequestClient(server.url);
    const changes: unknown[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', (n) => void changes.push(n));
    const sub = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['notes://index', 'nowhere://x'] });
    expect(sub.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['notes://index'] });

    await client.callTool({ name: 'toggleTool', arguments: { name: 'count', enabled: false } });
    await waitFor(() => changes.length >= 1, { what: 'notifications/tools/list_changed on the listen stream' });
    expect(changes[0]).toMatchObject({ method: 'notifications/tools/list_changed' });

    await sub.close();
    expect(await sub.closed).toBe('local');
    // The server stopped the subscription: a change now reaches no one, and the server keeps serving.
    await client.callTool({ name: 'toggleTool', arguments: { name: 'count', enabled: true } });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('count');
    await client.close();
  });

  it('sees a graceful end when the server shuts down', async () => {
    const client = await perRequestClient(server.url);
    const sub = await client.listen({ toolsListChanged: true });
    await server.stop();
    expect(await sub.closed).toBe('graceful');
    await client.close();
  });
});

/**
 * Two instances on one private Redis: a resource update made on one reaches the listen streams held
 * by the other, once, and an instance does not hear its own updates a second time.
 */
describe('subscriptions/listen across scaled-out instances', () => {
  let redis: PrivateRedis;
  let a: Server;
  let b: Server;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: 'listen:' };
    [a, b] = await Promise.all([spawnHttpServer(HTTP_FIXTURE, env), spawnHttpServer(HTTP_FIXTURE, env)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.stop();
  });

  it('delivers notifyResourceUpdated of instance A to a listen stream on instance B', async () => {
    // Each instance has its own three notes: the next one added on either is note-4.
    const filter = { resourceSubscriptions: ['notes://note-4', 'notes://note-5'] };
    const onA = await rawListen(a.url, 'on-a', filter);
    const onB = await rawListen(b.url, 'on-b', filter);
    const clientA = await perRequestClient(a.url);
    const clientB = await perRequestClient(b.url);

    await clientA.callTool({ name: 'addNote', arguments: { title: 'from A', body: 'a' } });
    await onB.waitFor((r) => updates(r).length >= 1);
    expect(updates(onB)).toEqual([['notes://note-4', 'on-b']]);

    // Then B adds two: A hears them after its own note-4, which it heard once (B's updates went
    // through Redis after A's own, so an echo of A's would have come first).
    await clientB.callTool({ name: 'addNote', arguments: { title: 'from B', body: 'b' } });
    await clientB.callTool({ name: 'addNote', arguments: { title: 'again B', body: 'b' } });
    await onA.waitFor((r) => updates(r).some(([uri]) => uri === 'notes://note-5'));
    expect(updates(onA)).toEqual([
      ['notes://note-4', 'on-a'],
      ['notes://note-4', 'on-a'],
      ['notes://note-5', 'on-a'],
    ]);
    // notes://index changed each time too: no stream asked for it.
    expect(updates(onB).map(([uri]) => uri)).not.toContain('notes://index');

    await Promise.all([clientA.close(), clientB.close(), onA.disconnect(), onB.disconnect()]);
  });

  it('lets a multi round-trip request go on at another instance: requestState is sealed with a key the instances share', async () => {
    const post = async (url: string, id: number, params: Record<string, unknown>) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'confirmLater',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            name: 'confirmLater',
            arguments: { ms: 1 },
            ...params,
            _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
          },
        }),
      });
      return (await res.json()) as {
        result?: { resultType: string; requestState?: string; inputRequests?: Record<string, unknown>; content?: { text: string }[] };
        error?: { code: number };
      };
    };
    const first = await post(a.url, 1, {});
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'elicitation-0': { method: 'elicitation/create' } },
    });
    const retry = await post(b.url, 2, {
      requestState: first.result!.requestState,
      inputResponses: { 'elicitation-0': { action: 'accept', content: { confirm: true } } },
    });
    expect(retry.error).toBeUndefined();
    expect(retry.result).toMatchObject({
      resultType: 'complete',
      content: [{ text: expect.stringContaining(`confirmed=true on pid ${b.child.pid}`) }],
    });
  });
});
