import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { join } from 'node:path';
import { IDEMPOTENCY_KEY_META } from '../../src';
import { ROOT } from '../helpers/paths';
import { postPerRequest } from '../helpers/per-request-http';
import { PrivateRedis } from '../helpers/redis-server';
import { spawnHttpServer } from '../helpers/spawn-server';
import { waitFor } from '../helpers/wait-for';

const FIXTURE = join(ROOT, 'dist', 'test', 'fixtures', 'policies-server.js');
type Server = Awaited<ReturnType<typeof spawnHttpServer>>;

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

/**
 * Two instances behind one Redis share every policy: a burst split across them is limited once, a
 * retry on the other instance gets the stored result, concurrent retries on both run the handler once,
 * and a cached result (and its invalidation) is the same on both. Then Redis goes away: each policy
 * does what it is documented to do, no request hangs, and both instances serve on.
 */
describe('call policies on two instances sharing one Redis', () => {
  let redis: PrivateRedis;
  let a: Server;
  let b: Server;
  /** The servers of the running test, stopped after it. */
  let servers: Server[] = [];
  let clients: Client[] = [];
  let tests = 0;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
  }, 30_000);
  // Each test has two instances of its own, on a key prefix of its own: no count, stored result or
  // cache entry of one test is there for another.
  beforeEach(async () => {
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: `p${process.pid}-${++tests}:` };
    const start = async () => {
      const server = await spawnHttpServer(FIXTURE, env);
      servers.push(server);
      return server;
    };
    [a, b] = await Promise.all([start(), start()]);
  }, 30_000);
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    clients = [];
    await Promise.all(servers.map((s) => s.stop()));
    servers = [];
  });
  afterAll(async () => {
    await redis?.stop();
  });

  async function connect(server: Server): Promise<Client> {
    const client = new Client({ name: 'policies-scale-out', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    clients.push(client);
    return client;
  }

  /** How often each instance ran the idempotent handler. */
  async function charges(): Promise<number> {
    const counts = await Promise.all(
      [a, b].map(
        async (s) => JSON.parse(text((await postPerRequest(s.url, 'tools/call', { name: 'runs' })).body.result)) as { charge: number },
      ),
    );
    return counts.reduce((sum, c) => sum + c.charge, 0);
  }

  it('limits a burst split across both instances once (4 a minute per caller)', async () => {
    const [onA, onB] = await Promise.all([connect(a), connect(b)]);
    for (const client of [onA, onB, onA, onB])
      await expect(client.callTool({ name: 'limited' })).resolves.toMatchObject({ content: [{ text: 'ok' }] });
    for (const client of [onA, onB])
      await expect(client.callTool({ name: 'limited' })).rejects.toMatchObject({ code: 429, message: expect.stringContaining('-32023') });
  });

  it('gives a retry on the other instance the stored result, and runs concurrent retries on both once', async () => {
    const [onA, onB] = await Promise.all([connect(a), connect(b)]);
    const before = await charges();
    const charge = (client: Client, key: string) =>
      client.callTool({ name: 'charge', arguments: { amount: 5 }, _meta: { [IDEMPOTENCY_KEY_META]: key } });
    const first = text(await charge(onA, 'order-1'));
    expect(text(await charge(onB, 'order-1'))).toBe(first);
    expect(await charges()).toBe(before + 1);
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => charge(i % 2 ? onA : onB, 'order-2')));
    expect(new Set(all.map(text)).size).toBe(1);
    expect(await charges()).toBe(before + 2);
    await expect(
      onB.callTool({ name: 'charge', arguments: { amount: 6 }, _meta: { [IDEMPOTENCY_KEY_META]: 'order-2' } }),
    ).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('runs one call at a time across both instances, refusing the others as rate limited', async () => {
    const outcomes = await Promise.all(
      [a, b, a, b].map(async (server) => {
        const reply = await postPerRequest(server.url, 'tools/call', { name: 'serialized' });
        return reply.body.error ? `${reply.status} ${reply.body.error.code}` : 'ok';
      }),
    );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.filter((o) => o === '429 -32023')).toHaveLength(3);
  });

  it('serves a cached result from either instance, and clears it on both when one says the resource changed', async () => {
    const [onA, onB] = await Promise.all([connect(a), connect(b)]);
    const report = text(await onA.callTool({ name: 'report' }));
    expect(text(await onB.callTool({ name: 'report' }))).toBe(report);
    const read = async (client: Client) => ((await client.readResource({ uri: 'data://config' })).contents[0] as { text: string }).text;
    const config = await read(onA);
    expect(await read(onB)).toBe(config);
    await onB.callTool({ name: 'touch', arguments: { uri: 'data://config' } });
    const fresh = await read(onA);
    expect(fresh).not.toBe(config);
    expect(await read(onB)).toBe(fresh);
  });

  it('while Redis is away: open policies let calls through, closed ones refuse clearly, nothing hangs, both serve on', async () => {
    await redis.down();
    try {
      const started = Date.now();
      for (const server of [a, b]) {
        const open = await postPerRequest(server.url, 'tools/call', { name: 'limited' });
        expect(open.body.result).toMatchObject({ content: [{ text: 'ok' }] });
        const closed = await postPerRequest(server.url, 'tools/call', { name: 'strictlyLimited' });
        expect(closed.body.error).toMatchObject({ code: -32603, message: 'The policy store is unavailable' });
        const keyed = await postPerRequest(server.url, 'tools/call', {
          name: 'charge',
          arguments: { amount: 1 },
          _meta: { ...(await import('../helpers/per-request-http')).envelope(), [IDEMPOTENCY_KEY_META]: 'during-outage' },
        });
        expect(keyed.body.error).toMatchObject({ code: -32603, message: 'The policy store is unavailable' });
        const report = await postPerRequest(server.url, 'tools/call', { name: 'report' });
        expect(text(report.body.result)).toMatch(/^report \d+ from pid \d+$/);
        const serialized = await postPerRequest(server.url, 'tools/call', { name: 'serialized' });
        expect(serialized.body.result).toMatchObject({ content: [{ text: 'ok' }] });
      }
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await redis.up();
    }
    await waitFor(async () => (await postPerRequest(a.url, 'tools/call', { name: 'strictlyLimited' })).body.result !== undefined, {
      timeoutMs: 10_000,
      intervalMs: 200,
      what: 'the closed rate limit to work again',
    });
    expect(a.stderr()).toContain('The policy store failed; rate_limit let calls through');
  });
});
