import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CLIENT_PROTOCOL_VERSIONS, McpClient, sseClientTransport } from '../../../src/client';
import { SDK_FAR_SERVER } from '../../helpers/far-server';
import { spawnHttpServer } from '../../helpers/spawn-server';
import { waitFor } from '../../helpers/wait-for';

type Text = { content: { type: string; text: string }[] };

/** mcpkit's McpClient over its own HTTP+SSE (2024-11-05) transport, against a server built with the official SDK 1.x. */
describe('McpClient over sseClientTransport against an SDK 1.x HTTP+SSE server', () => {
  let far: Awaited<ReturnType<typeof spawnHttpServer>>;
  let client: McpClient;
  const errors: Error[] = [];
  const listChanged: string[] = [];

  beforeAll(async () => {
    far = await spawnHttpServer(SDK_FAR_SERVER, { FAR_TRANSPORT: 'sse' });
    client = new McpClient({ clientInfo: { name: 'sse-test', version: '0.0.1' }, capabilities: { elicitation: { form: {} } } });
    client.onerror = (e) => void errors.push(e);
    client.setRequestHandler('elicitation/create', async (params) => ({
      action: 'accept',
      content: { name: `Ada (asked: ${String(params.message)})` },
    }));
    client.onNotification('notifications/tools/list_changed', () => void listChanged.push('tools'));
    await client.connect(sseClientTransport(new URL('/sse', far.url)));
  });
  afterAll(async () => {
    await client?.close();
    await far?.stop();
  });

  it('initializes, lists and calls tools', async () => {
    expect(CLIENT_PROTOCOL_VERSIONS).toContain(client.protocolVersion);
    expect(client.serverInfo).toEqual({ name: 'sdk-far', version: '1.2.3' });
    const tools = await client.listAll<{ name: string }>('tools/list', 'tools');
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'askName', 'progress']));
    expect(await client.request<Text>('tools/call', { name: 'echo', arguments: { text: 'over sse' } })).toMatchObject({
      content: [{ type: 'text', text: 'echo: over sse' }],
    });
  });

  it("answers the server's elicitation, and receives progress", async () => {
    expect((await client.request<Text>('tools/call', { name: 'askName', arguments: {} })).content[0].text).toBe(
      'hello Ada (asked: Your name?)',
    );
    const seen: number[] = [];
    const result = await client.request<Text>(
      'tools/call',
      { name: 'progress', arguments: { steps: 3 } },
      { onProgress: (p) => void seen.push(p.progress) },
    );
    expect(result.content[0].text).toBe('did 3 steps');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('hears list_changed, and reports nothing wrong', async () => {
    await client.request('tools/call', { name: 'enableHidden', arguments: {} });
    await waitFor(() => listChanged.length > 0);
    expect((await client.request<Text>('tools/call', { name: 'hidden', arguments: {} })).content[0].text).toBe('found me');
    expect(errors).toEqual([]);
  });
});

describe('sseClientTransport against hostile servers', () => {
  let server: Server;
  let base: string;
  let handle: (req: IncomingMessage, res: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => handle(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const sse = (res: ServerResponse, text: string) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(text);
  };

  it('rejects start() when the GET answers 500, naming the status and body', async () => {
    handle = (_req, res) => void res.writeHead(500, { 'content-type': 'text/plain' }).end('broken');
    await expect(sseClientTransport(`${base}/sse`).start()).rejects.toThrow(/HTTP 500.*broken/);
  });

  it('rejects start() when the answer is not an event stream, or ends before the endpoint event', async () => {
    handle = (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    await expect(sseClientTransport(`${base}/sse`).start()).rejects.toThrow(/content type "application\/json"/);
    handle = (_req, res) => (sse(res, ': hello\n\n'), res.end());
    await expect(sseClientTransport(`${base}/sse`).start()).rejects.toThrow(/ended before the endpoint event/);
  });

  it('rejects start() after the timeout when no endpoint event comes', async () => {
    handle = (_req, res) => sse(res, 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/hi"}\n\n');
    const transport = sseClientTransport(`${base}/sse`, { timeoutMs: 300 });
    const closed: number[] = [];
    transport.onclose = () => void closed.push(1);
    await expect(transport.start()).rejects.toThrow(/no endpoint event within 300 ms/);
    await expect(transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).rejects.toThrow(/closed/);
    expect(closed).toEqual([]);
  });

  it('refuses an endpoint on another origin', async () => {
    const posted: string[] = [];
    handle = (req, res) =>
      req.method === 'POST'
        ? (posted.push(req.url!), res.writeHead(202).end())
        : sse(res, 'event: endpoint\ndata: http://evil.example:1/messages\n\n');
    await expect(sseClientTransport(`${base}/sse`).start()).rejects.toThrow(
      /refused an endpoint on another origin \(http:\/\/evil\.example:1\)/,
    );
    expect(posted).toEqual([]);
  });

  it("turns a refused POST of a request into that request's error, and a stream end into onclose once", async () => {
    let stream: ServerResponse | undefined;
    handle = (req, res) => {
      if (req.method === 'POST') return void res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      stream = res;
      sse(res, 'event: endpoint\ndata: /messages?sessionId=1\n\n');
    };
    const transport = sseClientTransport(`${base}/sse`);
    const messages: unknown[] = [];
    let closes = 0;
    transport.onmessage = (m) => void messages.push(m);
    transport.onclose = () => void closes++;
    await transport.start();
    expect(transport.endpoint?.href).toBe(`${base}/messages?sessionId=1`);
    await transport.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(messages).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'HTTP 503 Service Unavailable: busy', data: { httpStatus: 503 } } },
    ]);
    await expect(transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' })).rejects.toThrow(/HTTP 503/);
    stream!.end();
    await waitFor(() => closes === 1);
    await transport.close();
    expect(closes).toBe(1);
  });
});
