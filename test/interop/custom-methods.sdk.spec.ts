import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { envelope, postPerRequest } from '../helpers/per-request-http';
import { ROOT } from '../helpers/paths';
import { RawStdioPeer } from '../helpers/raw-stdio';
import { connectSdkOverStdio } from '../helpers/sdk-stdio';
import { spawnHttpServer } from '../helpers/spawn-server';

const FIXTURE = join(ROOT, 'dist', 'test', 'fixtures', 'custom-methods-server.js');
const Result = z.object({}).passthrough();
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/**
 * What every handshake (2025-11-25) client must see of the fixture's custom methods, over any transport.
 * `wire`, when given, is every message the client's transport delivered, in order: over stdio the SDK 1.x
 * client handles a notification a microtask after a response read in the same chunk, so it may drop a
 * progress notification sent just before the result (typescript-sdk#2580). There the order on the wire is
 * what the server answers for.
 */
async function handshakeChecks(client: Client, wire?: unknown[]): Promise<void> {
  expect(client.getServerCapabilities()).toMatchObject({
    tools: {},
    experimental: { 'acme/search': { version: 1 } },
    extensions: { 'com.acme/search': {} },
  });
  const progress: unknown[] = [];
  expect(
    await client.request({ method: 'acme/search', params: { q: 'cats' } }, Result, { onprogress: (p) => void progress.push(p) }),
  ).toEqual({ hits: ['found cats'], era: '2025-11-25' });
  const sent = { progress: 1, total: 1, message: 'searched' };
  if (wire) {
    const answer = wire.findIndex((m) => (m as { result?: { hits?: unknown } }).result?.hits !== undefined);
    const notice = wire.findIndex((m) => (m as { method?: string }).method === 'notifications/progress');
    expect(wire[notice]).toMatchObject({ params: sent });
    expect(notice).toBeGreaterThanOrEqual(0);
    expect(notice).toBeLessThan(answer);
    expect([[], [sent]]).toContainEqual(progress);
  } else {
    expect(progress).toEqual([sent]);
  }
  expect(await client.request({ method: 'acme/legacy', params: {} }, Result)).toEqual({ legacy: true });
  await expect(client.request({ method: 'acme/refuse', params: {} }, Result)).rejects.toMatchObject({ code: -32602, data: { field: 'q' } });
  await expect(client.request({ method: 'acme/crash', params: {} }, Result)).rejects.toMatchObject({
    code: -32603,
    message: expect.not.stringContaining('internal detail'),
  });
  await expect(client.request({ method: 'acme/unknown', params: {} }, Result)).rejects.toMatchObject({ code: -32601 });
  expect(await client.callTool({ name: 'echo', arguments: {} })).toMatchObject({ content: [{ text: 'echo' }] });
}

describe('custom methods over real HTTP (spawned server)', () => {
  let server: Awaited<ReturnType<typeof spawnHttpServer>>;
  beforeAll(async () => {
    server = await spawnHttpServer(FIXTURE);
  });
  afterAll(() => server.stop());

  it('serves a 2025-11-25 session (official SDK 1.x client): capability, result, progress, errors', async () => {
    const client = new Client({ name: 'interop', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      await handshakeChecks(client);
    } finally {
      await client.close(); // an open client would keep jest from exiting when a check fails
    }
  });

  it('serves an enveloped 2026-07-28 request (Mcp-Method header), advertises it in server/discover, 404 for the rest', async () => {
    const discover = await postPerRequest(server.url, 'server/discover');
    expect(discover.body.result?.capabilities).toMatchObject({
      experimental: { 'acme/search': { version: 1 } },
      extensions: { 'com.acme/search': {} },
    });
    const found = await postPerRequest(server.url, 'acme/search', { q: 'dogs' });
    expect(found.status).toBe(200);
    expect(found.body.result).toMatchObject({
      resultType: 'complete',
      hits: ['found dogs'],
      era: '2026-07-28',
      _meta: { [SERVER_INFO]: expect.objectContaining({ name: 'custom-methods' }) },
    });
    const refused = await postPerRequest(server.url, 'acme/refuse');
    expect(refused.body.error).toMatchObject({ code: -32602, data: { field: 'q' } });
    for (const method of ['acme/unknown', 'acme/legacy']) {
      const missing = await postPerRequest(server.url, method);
      expect([missing.status, missing.body.error?.code]).toEqual([404, -32601]);
    }
    expect(server.child.exitCode).toBeNull();
  });
});

describe('custom methods over stdio (real child process)', () => {
  it('serves a 2025-11-25 session (official SDK 1.x client)', async () => {
    const { client, transport } = await connectSdkOverStdio(FIXTURE, ['--stdio']);
    const wire: unknown[] = [];
    const deliver = transport.onmessage!;
    transport.onmessage = (message) => {
      wire.push(message);
      deliver(message);
    };
    try {
      await handshakeChecks(client, wire);
    } finally {
      await client.close(); // the child goes with it, even when a check fails
    }
  });

  it('serves 2026-07-28 requests on a connection pinned to the per-request era', async () => {
    const raw = new RawStdioPeer(FIXTURE, ['--stdio']);
    try {
      raw.send({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: envelope() } });
      expect(((await raw.response('d')) as { result: Record<string, unknown> }).result.capabilities).toMatchObject({
        extensions: { 'com.acme/search': {} },
      });
      raw.send({ jsonrpc: '2.0', id: 's', method: 'acme/search', params: { q: 'owls', _meta: envelope({ progressToken: 'p1' }) } });
      const found = (await raw.response('s')) as { result: Record<string, unknown> };
      expect(found.result).toMatchObject({ resultType: 'complete', hits: ['found owls'], era: '2026-07-28' });
      const notice = raw.lines.findIndex((m) => m.method === 'notifications/progress');
      expect(raw.lines[notice]).toMatchObject({ params: { progressToken: 'p1', progress: 1 } });
      expect(notice).toBeLessThan(raw.lines.findIndex((m) => m.id === 's')); // sent before the result
      raw.send({ jsonrpc: '2.0', id: 'l', method: 'acme/legacy', params: { _meta: envelope() } });
      expect(await raw.response('l')).toMatchObject({ error: { code: -32601 } });
      raw.endInput();
      expect(await raw.exited).toBe(0);
    } finally {
      raw.kill(); // after a failed check too: no child is left to keep jest from exiting (a no-op once it exited)
    }
    expect(raw.garbage).toEqual([]);
  });
});
