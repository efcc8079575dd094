import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpClient, streamableHttpClientTransport } from '../../../src/client';
import type { StreamableHttpClientOptions } from '../../../src/client';
import { deferred, waitFor } from '../../helpers/wait-for';

const INIT_RESULT = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '0' } };
const NOTE = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });

/** GET: 'event' sends one notification then ends; 'fail' answers 500; 'hugeRetry' asks for a retry past 2^31-1 ms. */
let getMode: 'event' | 'fail' | 'hugeRetry' | '405' = '405';
let gets = 0;
const cut = { endlessData: deferred(), endlessError: deferred() };
const headersSeen: IncomingMessage['headers'][] = [];

/** Writes `chunk` until the client goes away (or 256 MiB, so a client that never stops cannot hang the test run). */
function pump(res: ServerResponse, chunk: string, gone: () => void): void {
  res.once('close', gone);
  let written = 0;
  const more = () => {
    while (!res.destroyed && written < 256 * 1024 * 1024) {
      written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
  };
  more();
}

function handle(
  req: IncomingMessage,
  res: ServerResponse,
  body: { id?: number; method?: string; params?: { name?: string; cursor?: string } },
): void {
  headersSeen.push(req.headers);
  if (req.method === 'DELETE') return void res.writeHead(200).end();
  if (req.method === 'GET') {
    gets++;
    if (getMode === '405') return void res.writeHead(405).end();
    if (getMode === 'fail') return void res.writeHead(500).end();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    return void res.end(`${getMode === 'hugeRetry' ? 'retry: 4294967296' : 'retry: 5'}\nid: ${gets}\ndata: ${NOTE}\n\n`);
  }
  const json = (result: unknown, headers = {}) =>
    res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
  if (body.method === 'initialize') return void json(INIT_RESULT, { 'mcp-session-id': 'sess-1' });
  if (body.id === undefined) return void res.writeHead(202).end();
  if (body.method === 'tools/list') {
    const page = Number(body.params?.cursor ?? 0);
    const tools = Array.from({ length: 600 }, (_, i) => ({ name: `t${page}-${i}`, inputSchema: { type: 'object' } }));
    return void json({ tools, ...(page < 9 ? { nextCursor: String(page + 1) } : {}) });
  }
  switch (body.params?.name) {
    case 'bigJson':
      return void json({ content: [{ type: 'text', text: 'x'.repeat(2 * 1024 * 1024) }] });
    case 'endlessData':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return pump(res, `data: ${'x'.repeat(64 * 1024)}\n`, () => cut.endlessData.resolve());
    case 'endlessError':
      res.writeHead(500, { 'content-type': 'text/plain' });
      return pump(res, 'e'.repeat(64 * 1024), () => cut.endlessError.resolve());
    default:
      return void json({ ok: true });
  }
}

let server: Server;
let url: string;
const clients: McpClient[] = [];

async function connect(options: StreamableHttpClientOptions = {}): Promise<{ client: McpClient; errors: string[] }> {
  const client = new McpClient();
  const errors: string[] = [];
  client.onerror = (e) => void errors.push(e.message);
  clients.push(client);
  await client.connect(streamableHttpClientTransport(url, options));
  return { client, errors };
}

const call = (client: McpClient, name: string) => client.request('tools/call', { name, arguments: {} });

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => handle(req, res, text ? JSON.parse(text) : undefined));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  getMode = '405';
  gets = 0;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('McpClient over HTTP against servers that send too much', () => {
  it('fails a request whose JSON body is over maxMessageBytes, and keeps the session usable', async () => {
    const { client } = await connect({ maxMessageBytes: 1024 * 1024 });
    await expect(call(client, 'bigJson')).rejects.toMatchObject({
      code: -32603,
      message: 'Request failed: the response stream failed: the body is larger than 1048576 bytes',
    });
    expect(await call(client, 'fine')).toEqual({ ok: true });
  });

  it('fails a request whose SSE event grows past maxMessageBytes without a blank line, and cuts the stream', async () => {
    const { client } = await connect({ maxMessageBytes: 1024 * 1024 });
    await expect(call(client, 'endlessData')).rejects.toMatchObject({
      code: -32603,
      message: 'Request failed: the response stream failed: SSE event larger than 1048576 characters',
    });
    await cut.endlessData.promise;
    expect(await call(client, 'fine')).toEqual({ ok: true });
  });

  it('reads an endless error body only up to 8 KB, then lets the connection go', async () => {
    for (const fetch of [undefined, globalThis.fetch]) {
      const { client } = await connect({ fetch });
      const error = await call(client, 'endlessError').catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: -32603,
        message: `HTTP 500 Internal Server Error: ${'e'.repeat(200)}`,
        data: { httpStatus: 500 },
      });
    }
    await cut.endlessError.promise;
  });

  it('listAll stops clearly past maxItems', async () => {
    const { client } = await connect();
    expect(await client.listAll('tools/list', 'tools')).toHaveLength(6000);
    await expect(client.listAll('tools/list', 'tools', {}, { maxItems: 1000 })).rejects.toThrow(
      'tools/list returned more than 1000 items; stopping',
    );
  });
});

describe('McpClient GET stream against a server that keeps ending it', () => {
  it('keeps re-opening a stream that delivers events, past maxReconnects in all', async () => {
    getMode = 'event';
    const { client, errors } = await connect({ maxReconnects: 2, reconnectDelayMs: 5 });
    let changed = 0;
    client.onNotification('notifications/tools/list_changed', () => void changed++);
    await waitFor(() => changed >= 8, { what: 'eight list_changed notifications over re-opened GET streams' });
    expect(errors).toEqual([]);
  });

  it('reports when it gives up re-opening a stream that keeps failing', async () => {
    getMode = 'fail';
    const { errors } = await connect({ maxReconnects: 2, reconnectDelayMs: 5 });
    await waitFor(() => errors.some((e) => e.startsWith('GET stream: gave up after 2 re-opens in a row')), { what: 'the give-up report' });
    expect(gets).toBe(3);
    expect(errors.slice(0, 3)).toEqual(Array(3).fill('GET stream: HTTP 500 opening the GET stream'));
  });

  it('clamps a server retry: past 2^31-1 ms (Node would fire such a timer after 1 ms) to maxRetryDelayMs', async () => {
    getMode = 'hugeRetry';
    const spy = jest.spyOn(globalThis, 'setTimeout');
    try {
      const { client } = await connect({ maxRetryDelayMs: 20 });
      let changed = 0;
      client.onNotification('notifications/tools/list_changed', () => void changed++);
      await waitFor(() => changed >= 2, { what: 'a second GET stream after the clamped delay' });
      const delays = spy.mock.calls.map((c) => Number(c[1] ?? 0));
      expect(Math.max(...delays)).toBeLessThanOrEqual(60_000);
      expect(delays).toContain(20);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('McpClient over HTTP with header values carrying CR/LF', () => {
  it('fails the request cleanly and injects nothing, with either fetch', async () => {
    for (const fetch of [undefined, globalThis.fetch]) {
      let evil = false;
      const { client } = await connect({ fetch, headers: (): Record<string, string> => (evil ? { 'x-evil': 'a\r\nx-injected: 1' } : {}) });
      evil = true;
      await expect(call(client, 'fine')).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(/^HTTP POST failed: /) });
      await expect(client.notify('notifications/roots/list_changed')).rejects.toThrow(/^HTTP POST failed: /);
      evil = false;
      expect(await call(client, 'fine')).toEqual({ ok: true });
    }
    expect(headersSeen.some((h) => 'x-injected' in h || 'x-evil' in h)).toBe(false);
  });
});
