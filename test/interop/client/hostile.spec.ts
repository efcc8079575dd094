import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpClient, stdioClientTransport, streamableHttpClientTransport } from '../../../src/client';
import { deferred, waitFor } from '../../helpers/wait-for';

const INIT_RESULT = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '0' } };

/** A stdio server in a few lines: answers initialize, then misbehaves as `script` says for everything else. */
function stdioServer(onRequest: string): string[] {
  const program = `
    const rl = require('node:readline').createInterface({ input: process.stdin });
    const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
    const INIT = ${JSON.stringify(INIT_RESULT)};
    INIT.protocolVersion = process.env.VERSION || INIT.protocolVersion;
    rl.on('line', (line) => {
      const m = JSON.parse(line);
      if (m.method === 'initialize') return send({ jsonrpc: '2.0', id: m.id, result: INIT });
      if (m.id === undefined) return;
      ${onRequest}
    });`;
  return ['-e', program];
}

describe('McpClient against hostile stdio servers', () => {
  it('reports garbage lines, keeps going, and rejects the pending request when the server exits mid-request', async () => {
    const client = new McpClient();
    const errors: string[] = [];
    client.onerror = (e) => void errors.push(e.message);
    const closed = deferred();
    client.onclose = () => closed.resolve();
    await client.connect(
      stdioClientTransport({
        command: process.execPath,
        args: stdioServer(`
      process.stdout.write('this is not json\\n[1,2]\\n{"jsonrpc":"2.0","id":"nobody","result":{}}\\n');
      if (m.method === 'ping') return send({ jsonrpc: '2.0', id: m.id, result: {} });
      process.exit(3);`),
      }),
    );
    expect(await client.request('ping')).toEqual({});
    await expect(client.request('tools/list')).rejects.toMatchObject({ code: -32000, message: 'Connection closed' });
    await closed.promise;
    expect(errors).toEqual([
      'The server wrote a line that is not JSON: this is not json',
      'The server wrote a line that is not a JSON-RPC 2.0 message: [1,2]',
      'Received a response for unknown request id "nobody"',
      'The server wrote a line that is not JSON: this is not json',
      'The server wrote a line that is not a JSON-RPC 2.0 message: [1,2]',
      'Received a response for unknown request id "nobody"',
    ]);
    await expect(client.request('ping')).rejects.toMatchObject({ message: 'Connection closed' });
  });

  it('fails connect clearly when the command does not exist', async () => {
    const client = new McpClient();
    await expect(client.connect(stdioClientTransport({ command: '/nonexistent/mcp-server' }))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('fails connect on a protocol version it does not speak, and stops the child', async () => {
    const transport = stdioClientTransport({ command: process.execPath, args: stdioServer(''), env: { VERSION: '1999-01-01' } });
    const client = new McpClient();
    await expect(client.connect(transport)).rejects.toThrow(
      'The server answered initialize with protocol version "1999-01-01", which this client does not support',
    );
    await waitFor(() => transport.pid !== undefined && !isAlive(transport.pid));
  });

  it('rejects every pending request when the client closes, and ends a server that ignores stdin EOF', async () => {
    const transport = stdioClientTransport({
      command: process.execPath,
      args: stdioServer(`process.stdin.removeAllListeners('end');`),
      closeGraceMs: 100,
    });
    const client = new McpClient();
    await client.connect(transport);
    const pending = [client.request('tools/list'), client.request('resources/list')].map((p) =>
      expect(p).rejects.toMatchObject({ code: -32000, message: 'Connection closed by the client' }),
    );
    await client.close();
    await Promise.all(pending);
    expect(isAlive(transport.pid!)).toBe(false);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('McpClient against a hostile Streamable HTTP server', () => {
  let server: Server;
  let url: string;
  const seen: { method: string; rpc?: string; session?: string; version?: string }[] = [];
  const hanging = deferred();

  function handle(req: IncomingMessage, res: ServerResponse, body: { id?: number; method?: string; params?: { name?: string } }): void {
    seen.push({
      method: req.method!,
      rpc: body?.method,
      session: req.headers['mcp-session-id'] as string,
      version: req.headers['mcp-protocol-version'] as string,
    });
    if (req.method === 'GET') return void res.writeHead(405).end();
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    if (body.method === 'initialize')
      return void res
        .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-1' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: INIT_RESULT }));
    if (body.id === undefined) return void res.writeHead(202).end();
    const sse = () => res.writeHead(200, { 'content-type': 'text/event-stream' });
    switch (body.params?.name) {
      case 'http500':
        return void res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
      case 'jsonError':
        return void res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32602, message: 'Bad name', data: { why: 'x' } } }));
      case 'garbage':
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('<html>nope</html>');
      case 'dropMidStream':
        sse();
        res.write('id: 1\ndata:\n\n');
        res.write(
          `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress",\ndata: "params":{"progressToken":${body.id},"progress":1}}\n\n`,
        );
        return void setTimeout(() => res.destroy(), 20);
      case 'hang':
        sse();
        res.write(': waiting\n\n');
        return void res.once('close', () => hanging.resolve());
      default:
        sse();
        return void res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { ok: true } })}\r\n\r\n`);
    }
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => handle(req, res, text ? JSON.parse(text) : undefined));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('turns HTTP failures into JSON-RPC errors for the request that failed, and keeps the session usable', async () => {
    const client = new McpClient();
    const errors: string[] = [];
    client.onerror = (e) => void errors.push(e.message);
    await client.connect(streamableHttpClientTransport(url));
    const call = (name: string, onProgress?: () => void) => client.request('tools/call', { name, arguments: {} }, { onProgress });
    await expect(call('http500')).rejects.toMatchObject({
      code: -32603,
      message: 'HTTP 500 Internal Server Error: boom',
      data: { httpStatus: 500 },
    });
    await expect(call('jsonError')).rejects.toMatchObject({ code: -32602, message: 'Bad name', data: { why: 'x' } });
    await expect(call('garbage')).rejects.toMatchObject({
      code: -32603,
      message: 'Request failed: the server answered without a response to the request',
    });
    let progressed = 0;
    await expect(call('dropMidStream', () => progressed++)).rejects.toMatchObject({
      code: -32603,
      message: expect.stringMatching(
        /^Request failed: the (response stream failed: .+|server closed the response stream before answering)$/,
      ),
    });
    expect(progressed).toBe(1); // the multi-line data frame before the drop was delivered
    expect(await call('fine')).toEqual({ ok: true });
    expect(errors).toEqual(['The server sent a body that is not JSON: <html>nope</html>']); // the GET 405 is no error

    const later = seen.filter((s) => s.rpc === 'tools/call');
    expect(later.every((s) => s.session === 'sess-1' && s.version === '2025-11-25')).toBe(true);
    expect(seen.find((s) => s.rpc === 'initialize')).toMatchObject({ session: undefined, version: undefined });
    await client.close();
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', session: 'sess-1' });
  });

  it('closing aborts open response streams and rejects what waits on them', async () => {
    const client = new McpClient();
    await client.connect(streamableHttpClientTransport(url));
    const before = seen.length;
    const pending = client.request('tools/call', { name: 'hang', arguments: {} });
    const rejected = expect(pending).rejects.toMatchObject({ code: -32000, message: 'Connection closed by the client' });
    await waitFor(() => seen.slice(before).some((s) => s.rpc === 'tools/call'));
    await client.close();
    await rejected;
    await hanging.promise; // the server saw the stream go away
  });

  it('rejects a request when the server is unreachable', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const client = new McpClient();
    await expect(client.connect(streamableHttpClientTransport(`http://127.0.0.1:${port}/mcp`))).rejects.toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^HTTP POST failed: .*ECONNREFUSED/),
    });
    // The global fetch, given as an option, says the same through its error's cause.
    const withFetch = new McpClient();
    await expect(
      withFetch.connect(streamableHttpClientTransport(`http://127.0.0.1:${port}/mcp`, { fetch: globalThis.fetch })),
    ).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(/^HTTP POST failed: fetch failed \(.*ECONNREFUSED/) });
  });
});
