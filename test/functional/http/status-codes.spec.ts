import request from 'supertest';
import { UnauthorizedError } from '../../../src/auth';
import { ACCEPT_BOTH, httpApp, initializeBody, parseSse } from '../../helpers/http-app';

/** Every status code and security rule of the Streamable HTTP transport, through the Koa callback. */
describe('Streamable HTTP status codes', () => {
  let env: Awaited<ReturnType<typeof httpApp>>;
  let sessionId: string;

  beforeAll(async () => {
    env = await httpApp();
    const res = await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
    sessionId = res.headers['mcp-session-id'];
  });
  afterAll(() => env.app.close());

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    request(env.callback)
      .post('/mcp')
      .set({ Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', 'Mcp-Session-Id': sessionId, ...headers })
      .send(typeof body === 'string' ? body : JSON.stringify(body));

  it('answers initialize as JSON with a random session id', async () => {
    const res = await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody(7));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['mcp-session-id']).toMatch(/^[0-9a-f]{32}$/);
    expect(res.headers['mcp-session-id']).not.toBe(sessionId);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 7, result: { protocolVersion: '2025-11-25', serverInfo: { name: 'http-test' } } });
  });

  it('answers a request whose handler sends nothing first as plain JSON', async () => {
    const res = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'quick', arguments: {} } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'quick' }] } });
  });

  it('upgrades to SSE when the handler sends a notification first: priming event, retry, then the messages', async () => {
    const res = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'chatty', arguments: {} } })
      .buffer(true)
      .parse((r, cb) => {
        let data = '';
        r.on('data', (c: Buffer) => (data += c.toString()));
        r.on('end', () => cb(null, data));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.headers['mcp-session-id']).toBe(sessionId);
    const events = parseSse(res.body as string);
    expect(events[0]).toMatchObject({ data: '', retry: 1000 });
    expect(events[0].id).toBeDefined();
    expect(JSON.parse(events[1].data)).toMatchObject({ method: 'notifications/message', params: { level: 'info', data: 'hello' } });
    expect(JSON.parse(events[2].data)).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'chatty' }] } });
    const ids = events.map((e) => e.id);
    expect(new Set(ids).size).toBe(3);
  });

  it('answers notifications and responses with 202 and no body', async () => {
    const n = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(n.status).toBe(202);
    expect(n.text).toBe('');
    const r = await post({ jsonrpc: '2.0', id: 'unknown-outbound', result: {} });
    expect(r.status).toBe(202);
  });

  it.each([
    ['no Accept', {}, 406],
    ['Accept without SSE', { Accept: 'application/json' }, 406],
    ['Accept without JSON', { Accept: 'text/event-stream' }, 406],
  ])('answers %s with 406', async (_label, headers, status) => {
    const res = await request(env.callback)
      .post('/mcp')
      .set({ 'Content-Type': 'application/json', 'Mcp-Session-Id': sessionId, ...headers })
      .send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  });

  it('accepts wildcard Accept headers', async () => {
    expect((await post({ jsonrpc: '2.0', id: 'w', method: 'ping' }, { Accept: '*/*' })).status).toBe(200);
  });

  it('answers a non-JSON Content-Type with 415', async () => {
    const res = await post('{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'Content-Type': 'text/plain' });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe(-32000);
  });

  it('answers malformed JSON with 400 and a -32700 body, never an HTML page', async () => {
    const res = await post('{"jsonrpc":');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } });
  });

  it('answers a batch or a non-message with 400 and -32600', async () => {
    expect((await post([{ jsonrpc: '2.0', id: 1, method: 'ping' }])).body.error.code).toBe(-32600);
    const res = await post({ hello: 'world' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32600);
  });

  it('answers other methods with 405 and Allow', async () => {
    for (const method of ['put', 'patch'] as const) {
      const res = await request(env.callback)[method]('/mcp');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, POST, DELETE');
      expect(res.body.error.code).toBe(-32000);
    }
  });

  it('requires the session id (400) and knows only live sessions (404)', async () => {
    const missing = await request(env.callback)
      .post('/mcp')
      .set({ Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' })
      .send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/Mcp-Session-Id/);
    const unknown = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'Mcp-Session-Id': 'f'.repeat(32) });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: -32001 } });
  });

  it('terminates a session on DELETE, then answers 404 for it', async () => {
    const init = await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
    const id = init.headers['mcp-session-id'];
    expect((await request(env.callback).delete('/mcp').set('Mcp-Session-Id', id)).status).toBe(200);
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'Mcp-Session-Id': id })).status).toBe(404);
    expect((await request(env.callback).delete('/mcp').set('Mcp-Session-Id', id)).status).toBe(404);
    expect((await request(env.callback).get('/mcp').set({ 'Mcp-Session-Id': id, Accept: 'text/event-stream' })).status).toBe(404);
  });

  it('validates MCP-Protocol-Version: unsupported -> 400, absent or supported -> served', async () => {
    const bad = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'MCP-Protocol-Version': '2099-01-01' });
    expect(bad.status).toBe(400);
    // A dual-era server answers with the per-request error, naming what it serves (a 2026 client then retries).
    expect(bad.body.error).toMatchObject({
      code: -32022,
      data: { requested: '2099-01-01', supported: expect.arrayContaining(['2026-07-28', '2025-11-25']) },
    });
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'MCP-Protocol-Version': '2025-06-18' })).status).toBe(200);
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(200);
  });

  it('rejects foreign Host and Origin with 403 and a JSON-RPC body; accepts loopback ones', async () => {
    const host = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { Host: 'evil.example.com' });
    expect(host.status).toBe(403);
    expect(host.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('Host') } });
    const origin = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { Origin: 'http://evil.example.com' });
    expect(origin.status).toBe(403);
    expect(origin.body.error.message).toContain('Origin');
    const allowed: Record<string, string>[] = [
      { Host: 'localhost:3000', Origin: 'http://localhost:3000' },
      { Host: '127.0.0.1' },
      { Host: '[::1]:8080', Origin: 'https://[::1]:8080' },
    ];
    for (const ok of allowed) {
      expect((await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, ok)).status).toBe(200);
    }
    const get = await request(env.callback)
      .get('/mcp')
      .set({ Host: 'evil.example.com', Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId });
    expect(get.status).toBe(403);
  });

  it('answers bodies over the limit with 413 (declared or streamed) and keeps serving', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'slow', arguments: { text: 'x'.repeat(5 * 1024 * 1024) } },
    });
    const res = await post(big);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe(-32000);
    expect((await post({ jsonrpc: '2.0', id: 'after', method: 'ping' })).status).toBe(200);
  });

  it('answers GET without an SSE Accept with 406', async () => {
    const res = await request(env.callback).get('/mcp').set({ Accept: 'application/json', 'Mcp-Session-Id': sessionId });
    expect(res.status).toBe(406);
  });

  it('serves a health endpoint', async () => {
    const res = await request(env.callback).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok' });
  });
});

describe('Streamable HTTP options', () => {
  it('forces JSON answers (notifications go elsewhere) or SSE answers', async () => {
    const json = await httpApp({ responseMode: 'json' });
    const init = await request(json.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
    const res = await request(json.callback)
      .post('/mcp')
      .set({ Accept: ACCEPT_BOTH, 'Mcp-Session-Id': init.headers['mcp-session-id'] })
      .send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'chatty', arguments: {} } });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.result.content[0].text).toBe('chatty');
    await json.app.close();

    const sse = await httpApp({ responseMode: 'sse' });
    const init2 = await request(sse.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
    expect(init2.headers['content-type']).toBe('text/event-stream');
    const events = parseSse(init2.text);
    expect(JSON.parse(events[events.length - 1].data).result.serverInfo.name).toBe('http-test');
    await sse.app.close();
  });

  it('serves every POST on its own in stateless mode: no session id, no GET, no DELETE', async () => {
    const env = await httpApp({ sessions: false });
    const init = await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    const call = await request(env.callback)
      .post('/mcp')
      .set('Accept', ACCEPT_BOTH)
      .send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'quick', arguments: {} } });
    expect(call.body.result.content[0].text).toBe('quick');
    expect((await request(env.callback).get('/mcp').set('Accept', 'text/event-stream')).status).toBe(405);
    expect((await request(env.callback).delete('/mcp')).status).toBe(405);
    await env.app.close();
  });

  it('assumes protocol 2025-03-26 for a stateless request without MCP-Protocol-Version, else uses the header', async () => {
    const env = await httpApp({ sessions: false });
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'version', arguments: {} } };
    const bare = await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(call);
    expect(bare.body.result.content[0].text).toBe('2025-03-26');
    const named = await request(env.callback).post('/mcp').set({ Accept: ACCEPT_BOTH, 'MCP-Protocol-Version': '2025-06-18' }).send(call);
    expect(named.body.result.content[0].text).toBe('2025-06-18');
    await env.app.close();
  });

  it('answers GET with 405 when the standalone stream is turned off', async () => {
    const env = await httpApp({ enableGetStream: false });
    const init = await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
    const res = await request(env.callback)
      .get('/mcp')
      .set({ Accept: 'text/event-stream', 'Mcp-Session-Id': init.headers['mcp-session-id'] });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST, DELETE');
    await env.app.close();
  });

  it('refuses sessions beyond maxSessions with 503', async () => {
    const env = await httpApp({ maxSessions: 2 });
    for (let i = 0; i < 2; i++)
      expect((await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody())).status).toBe(200);
    const third = await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
    expect(third.status).toBe(503);
    expect(third.body.error.message).toMatch(/too many sessions/);
    await env.app.close();
  });

  it('sends CORS headers that expose Mcp-Session-Id, and answers preflight', async () => {
    const env = await httpApp({ cors: { origins: ['http://localhost:5173'] } });
    const pre = await request(env.callback).options('/mcp').set('Origin', 'http://localhost:5173');
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(pre.headers['access-control-allow-headers']).toContain('Mcp-Session-Id');
    const init = await request(env.callback)
      .post('/mcp')
      .set({ Accept: ACCEPT_BOTH, Origin: 'http://localhost:5173' })
      .send(initializeBody());
    expect(init.headers['access-control-expose-headers']).toContain('Mcp-Session-Id');
    const other = await request(env.callback).options('/mcp').set('Origin', 'http://localhost:9999');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    await env.app.close();
  });

  it('turns host checks off when asked, and lets allow-lists replace the defaults', async () => {
    const open = await httpApp({ dnsRebindingProtection: false });
    expect(
      (await request(open.callback).post('/mcp').set({ Accept: ACCEPT_BOTH, Host: 'anything.example' }).send(initializeBody())).status,
    ).toBe(200);
    await open.app.close();
    const custom = await httpApp({ allowedHosts: ['mcp.internal'], allowedOrigins: ['https://app.internal'] });
    expect(
      (await request(custom.callback).post('/mcp').set({ Accept: ACCEPT_BOTH, Host: 'mcp.internal:8443' }).send(initializeBody())).status,
    ).toBe(200);
    expect(
      (await request(custom.callback).post('/mcp').set({ Accept: ACCEPT_BOTH, Host: 'localhost' }).send(initializeBody())).status,
    ).toBe(403);
    expect(
      (
        await request(custom.callback)
          .post('/mcp')
          .set({ Accept: ACCEPT_BOTH, Host: 'mcp.internal', Origin: 'https://evil.internal' })
          .send(initializeBody())
      ).status,
    ).toBe(403);
    await custom.app.close();
  });

  it('authenticates requests and hides a session from another principal', async () => {
    const env = await httpApp({
      authenticate: ({ headers }) => {
        const token = headers.authorization;
        if (token === 'Bearer bad') throw new UnauthorizedError('bad token');
        return token ? { subject: token.slice(7) } : undefined;
      },
    });
    const init = await request(env.callback)
      .post('/mcp')
      .set({ Accept: ACCEPT_BOTH, Authorization: 'Bearer alice' })
      .send(initializeBody());
    const id = init.headers['mcp-session-id'];
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect(
      (
        await request(env.callback)
          .post('/mcp')
          .set({ Accept: ACCEPT_BOTH, Authorization: 'Bearer alice', 'Mcp-Session-Id': id })
          .send(ping)
      ).status,
    ).toBe(200);
    expect(
      (
        await request(env.callback)
          .post('/mcp')
          .set({ Accept: ACCEPT_BOTH, Authorization: 'Bearer mallory', 'Mcp-Session-Id': id })
          .send(ping)
      ).status,
    ).toBe(404);
    expect(
      (await request(env.callback).post('/mcp').set({ Accept: ACCEPT_BOTH, Authorization: 'Bearer bad', 'Mcp-Session-Id': id }).send(ping))
        .status,
    ).toBe(401);
    await env.app.close();
  });
});
