import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { injectable } from 'tsyringe';
import { z } from 'zod';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { EmptyInput, InvalidDefinitionError, Invocation, McpApplication, McpError, McpModule, Middleware, Tool } from '../../src';
import request from 'supertest';
import { ACCEPT_BOTH } from '../helpers/http-app';
import { perRequestBody, perRequestHeaders } from '../helpers/per-request-http';
import { RawTransport } from '../helpers/raw-transport';
import { waitFor } from '../helpers/wait-for';
import { httpTransport } from '../../src/http';

@injectable()
class Plain {
  @Tool() echo(_: EmptyInput) {
    return 'echo';
  }
}

@McpModule({ server: { name: 'custom', version: '1.0.0' }, providers: [Plain] })
class CustomModule {}

const Hits = z.object({ hits: z.array(z.string()) }).passthrough();
const Anything = z.object({}).passthrough();

async function start(
  options: Parameters<typeof McpApplication.create>[1] = {},
  connect: Parameters<McpApplication['connectInMemory']>[0] = {},
) {
  const logged: string[] = [];
  const app = await McpApplication.create(CustomModule, {
    logger: { error: (m, e) => logged.push(`${m} ${e instanceof Error ? e.message : ''}`), warn: () => undefined, info: () => undefined },
    ...options,
  });
  const connectClient = async () => {
    const client = new Client({ name: 'sdk', version: '1' });
    const notes: { method: string; params?: unknown }[] = [];
    client.fallbackNotificationHandler = async (n) => void notes.push(n);
    await client.connect(app.connectInMemory(connect));
    return { client, notes };
  };
  return { app, logged, connectClient };
}

const search = (params: Record<string, unknown>) => ({ hits: [`found ${String(params.q)}`] });
const codeOf = (e: unknown) => (e as McpError).code;

describe('custom methods (app.addMethod)', () => {
  it('hands client notifications mcpkit does not handle to app.onNotification listeners, handshake and 2026-07-28', async () => {
    const { app, logged, connectClient } = await start();
    const heard: unknown[] = [];
    const stop = app.onNotification(
      'acme/heartbeat',
      (params, session) => void heard.push({ beat: params.beat, client: session.clientInfo?.name }),
    );
    app.onNotification('acme/heartbeat', () => {
      throw new Error('listener broke');
    });
    const { client } = await connectClient();
    await client.notification({ method: 'acme/heartbeat', params: { beat: 1 } });
    await client.notification({ method: 'acme/other', params: {} });
    await waitFor(() => heard.length === 1);
    expect(heard).toEqual([{ beat: 1, client: 'sdk' }]);
    expect(logged).toEqual(['A listener of acme/heartbeat threw listener broke']);
    // The connection still serves after a listener threw.
    expect(await client.callTool({ name: 'echo', arguments: {} })).toMatchObject({ content: [{ text: 'echo' }] });
    stop();
    await client.notification({ method: 'acme/heartbeat', params: { beat: 2 } });
    await client.callTool({ name: 'echo', arguments: {} });
    expect(heard).toHaveLength(1);

    // A 2026-07-28 client over HTTP: a notification is accepted (202) and heard.
    const modern: unknown[] = [];
    app.onNotification('acme/modern', (params, session) => void modern.push({ params, version: session.protocolVersion }));
    const http = httpTransport(app);
    const { id: _id, ...notification } = perRequestBody('acme/modern', { x: 1 });
    const res = await request(http.callback()).post('/mcp').set(perRequestHeaders(notification)).send(notification);
    expect(res.status).toBe(202);
    await waitFor(() => modern.length === 1);
    expect(modern[0]).toMatchObject({ params: { x: 1 } });
    expect(() => app.onNotification('', () => undefined)).toThrow(InvalidDefinitionError);
    await app.close();
  });

  it('refuses a listener of a notification mcpkit handles itself, naming the way in for it', async () => {
    const { app } = await start();
    expect(() => app.onNotification('notifications/roots/list_changed', () => undefined)).toThrow(
      new InvalidDefinitionError(
        'onNotification("notifications/roots/list_changed")',
        'no listener would run: listen to it with app.onRootsListChanged',
      ),
    );
    for (const method of ['notifications/initialized', 'notifications/cancelled'])
      expect(() => app.onNotification(method, () => undefined)).toThrow(InvalidDefinitionError);
    await app.close();
  });

  it('serves a method with its capability fragment, and removes both with removeMethod', async () => {
    const { app, connectClient } = await start();
    app.addMethod('acme/search', search, { capabilities: { experimental: { 'acme/search': { v: 1 } }, extensions: { 'com.acme/x': {} } } });
    const { client } = await connectClient();
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      experimental: { 'acme/search': { v: 1 } },
      extensions: { 'com.acme/x': {} },
    });
    expect(await client.request({ method: 'acme/search', params: { q: 'x' } }, Hits)).toEqual({ hits: ['found x'] });

    expect(app.removeMethod('acme/search')).toBe(true);
    expect(app.removeMethod('acme/search')).toBe(false);
    expect(codeOf(await client.request({ method: 'acme/search', params: {} }, Hits).catch((e: unknown) => e))).toBe(-32601);
    const { client: later } = await connectClient();
    expect(later.getServerCapabilities()).not.toHaveProperty('experimental');
    expect(later.getServerCapabilities()).not.toHaveProperty('extensions');
    await app.close();
  });

  it('refuses params with prototype keys or nesting past 64 levels with -32602, before the handler', async () => {
    const { app, connectClient } = await start();
    const seen: unknown[] = [];
    app.addMethod('acme/store', (params) => (seen.push(params), { ok: true }));
    const { client } = await connectClient();
    const polluted = await client
      .request({ method: 'acme/store', params: JSON.parse('{"value":{"__proto__":{"admin":true}}}') }, Anything)
      .catch((e: unknown) => e);
    expect(polluted).toMatchObject({ code: -32602, message: expect.stringContaining('the key "__proto__" is not allowed') });
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) deep = { d: deep };
    expect(codeOf(await client.request({ method: 'acme/store', params: deep }, Anything).catch((e: unknown) => e))).toBe(-32602);
    expect(seen).toEqual([]);
    expect(await client.request({ method: 'acme/store', params: { value: 1 } }, Anything)).toEqual({ ok: true });
    await app.close();
  });

  it('answers with a thrown McpError as is; any other failure, or a result that is not an object, is -32603 and logged', async () => {
    const { app, logged, connectClient } = await start();
    app.addMethod('acme/refuse', () => {
      throw new McpError(-32602, 'no query', { field: 'q' });
    });
    app.addMethod('acme/crash', async () => {
      throw new Error('secret detail');
    });
    app.addMethod('acme/number', () => 42);
    const { client } = await connectClient();
    const refused = (await client.request({ method: 'acme/refuse', params: {} }, Anything).catch((e: unknown) => e)) as McpError;
    expect([refused.code, refused.message, refused.data]).toEqual([-32602, expect.stringContaining('no query'), { field: 'q' }]);
    const crashed = (await client.request({ method: 'acme/crash', params: {} }, Anything).catch((e: unknown) => e)) as McpError;
    expect(crashed.code).toBe(-32603);
    expect(crashed.message).not.toContain('secret');
    expect(codeOf(await client.request({ method: 'acme/number', params: {} }, Anything).catch((e: unknown) => e))).toBe(-32603);
    expect(logged).toEqual([expect.stringContaining('secret detail'), expect.stringContaining('acme/number')]);
    // The server keeps serving.
    expect(await client.callTool({ name: 'echo', arguments: {} })).toMatchObject({ content: [{ text: 'echo' }] });
    await app.close();
  });

  it('runs inside the application middleware, with the real context: log and progress reach the client', async () => {
    const seen: Invocation[] = [];
    const middleware: Middleware = async (invocation, next) => {
      seen.push(invocation);
      const result = (await next()) as Record<string, unknown>;
      return { ...result, wrapped: true };
    };
    const { app, connectClient } = await start({ middleware: [middleware] });
    app.addMethod('acme/work', async (params, ctx) => {
      await ctx.progress(1, 2, 'half');
      await ctx.log.warning('working');
      return { done: params.n, aborted: ctx.signal.aborted, session: typeof ctx.session.protocolVersion };
    });
    const { client, notes } = await connectClient();
    const progress: unknown[] = [];
    const result = await client.request({ method: 'acme/work', params: { n: 3 } }, Anything, { onprogress: (p) => void progress.push(p) });
    expect(result).toEqual({ done: 3, aborted: false, session: 'string', wrapped: true });
    expect(progress).toEqual([{ progress: 1, total: 2, message: 'half' }]);
    await waitFor(() => notes.some((n) => n.method === 'notifications/message'), { what: 'the log message' });
    expect(notes.find((n) => n.method === 'notifications/message')?.params).toMatchObject({ level: 'warning', data: 'working' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ kind: 'method', handler: 'acme/work', args: [expect.objectContaining({ n: 3 }), expect.anything()] });
    expect(seen[0].context).toBeDefined();
    await app.close();
  });

  it('enforces scopes for a remote caller: -32003 naming them without the scope, served with it', async () => {
    const scoped = (scopes: string[]) => ({ local: false, auth: { token: 't', clientId: 'c', subject: 'alice', scopes } });
    const { app, connectClient } = await start({}, scoped(['read']));
    app.addMethod('acme/admin', (_, ctx) => ({ who: ctx.auth?.subject }), { scopes: ['admin'] });
    const { client } = await connectClient();
    const error = (await client.request({ method: 'acme/admin', params: {} }, Anything).catch((e: unknown) => e)) as McpError;
    expect([error.code, error.data]).toEqual([-32003, { requiredScopes: ['admin'] }]);
    await app.close();

    const allowed = await start({}, scoped(['admin']));
    allowed.app.addMethod('acme/admin', (_, ctx) => ({ who: ctx.auth?.subject }), { scopes: ['admin'] });
    const { client: admin } = await allowed.connectClient();
    expect(await admin.request({ method: 'acme/admin', params: {} }, Anything)).toEqual({ who: 'alice' });
    await allowed.app.close();
  });

  it('refuses, with InvalidDefinitionError, MCP methods, empty names, duplicates, bad handlers and mcpkit capabilities', async () => {
    const { app } = await start();
    for (const method of [
      'initialize',
      'ping',
      'tools/call',
      'tools/whatever',
      'resources/read',
      'prompts/get',
      'completion/complete',
      'logging/setLevel',
      'tasks/get',
      'server/discover',
      'subscriptions/listen',
      'notifications/foo',
      '',
      ' acme/x',
    ]) {
      expect(() => app.addMethod(method, search)).toThrow(InvalidDefinitionError);
    }
    app.addMethod('acme/search', search);
    expect(() => app.addMethod('acme/search', search)).toThrow(/already added/);
    expect(() => app.addMethod('acme/bad', 'nope' as never)).toThrow(/handler must be a function/);
    expect(() => app.addMethod('acme/caps', search, { capabilities: { tools: {} } })).toThrow(/may not set tools/);
    expect(() => app.addMethod('acme/scopes', search, { scopes: [''] })).toThrow(InvalidDefinitionError);
    // A fragment read from JSON with a __proto__ key would otherwise set the prototype of the merged capabilities.
    expect(() =>
      app.addMethod('acme/proto', search, { capabilities: JSON.parse('{"experimental":{"__proto__":{"polluted":true}}}') }),
    ).toThrow(/the key "__proto__" is not allowed/);
    await app.close();
  });

  it('serves a 2026-07-28 request on a dual connection (advertised in server/discover), unless perRequest: false', async () => {
    const { app } = await start();
    app.addMethod('acme/search', search, { capabilities: { extensions: { 'com.acme/x': {} } } });
    app.addMethod('acme/legacy-only', () => ({ ok: true }), { perRequest: false, capabilities: { experimental: { legacy: {} } } });
    const raw = new RawTransport();
    app.connect(raw, { local: true });
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const discover = await raw.request({ id: 1, method: 'server/discover', params: { _meta: meta } });
    expect(discover.result?.capabilities).toMatchObject({ extensions: { 'com.acme/x': {} } });
    expect(discover.result?.capabilities).not.toHaveProperty('experimental');
    const found = await raw.request({ id: 2, method: 'acme/search', params: { q: 'm', _meta: meta } });
    expect(found.result).toMatchObject({
      resultType: 'complete',
      hits: ['found m'],
      _meta: { 'io.modelcontextprotocol/serverInfo': expect.objectContaining({ name: 'custom' }) },
    });
    expect((await raw.request({ id: 3, method: 'acme/legacy-only', params: { _meta: meta } })).error?.code).toBe(-32601);
    app.removeMethod('acme/search');
    expect((await raw.request({ id: 4, method: 'acme/search', params: { _meta: meta } })).error?.code).toBe(-32601);
    const after = await raw.request({ id: 5, method: 'server/discover', params: { _meta: meta } });
    expect(after.result?.capabilities).not.toHaveProperty('extensions');
    // Added again with another handler: that one answers (a per-request route is never served from an older registry).
    app.addMethod('acme/search', () => ({ hits: ['again'] }));
    expect((await raw.request({ id: 6, method: 'acme/search', params: { _meta: meta } })).result).toMatchObject({ hits: ['again'] });
    await app.close();
  });
  it('gets a server span like any request (telemetry full): named after the method, its error code on failure', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const { app, connectClient } = await start({ telemetry: { mode: 'full', tracerProvider } });
    app.addMethod('acme/search', search);
    app.addMethod('acme/refuse', () => {
      throw new McpError(-32602, 'no');
    });
    const { client } = await connectClient();
    await client.request({ method: 'acme/search', params: { q: 1 } }, Hits);
    await client.request({ method: 'acme/refuse', params: {} }, Anything).catch(() => undefined);
    const spans = exporter.getFinishedSpans();
    const ok = spans.find((s) => s.name === 'acme/search');
    const failed = spans.find((s) => s.name === 'acme/refuse');
    expect(ok?.attributes).toMatchObject({ 'mcp.method.name': 'acme/search' });
    expect(failed?.attributes).toMatchObject({ 'mcp.method.name': 'acme/refuse', 'rpc.response.status_code': '-32602' });
    await app.close();
  });
  it('asks the client for input in both eras: a request in a 2025-11-25 session, an input round (MRTR) in 2026-07-28', async () => {
    const { app } = await start();
    app.addMethod('acme/confirm', async (params, ctx) => {
      const answer = await ctx.elicit({
        message: `Delete ${String(params.item)}?`,
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      });
      return { action: answer.action, content: answer.content ?? null };
    });
    const client = new Client({ name: 'sdk', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => ({
      action: 'accept',
      content: { ok: request.params.message === 'Delete a?' },
    }));
    await client.connect(app.connectInMemory());
    expect(await client.request({ method: 'acme/confirm', params: { item: 'a' } }, Anything)).toEqual({
      action: 'accept',
      content: { ok: true },
    });

    const raw = new RawTransport();
    app.connect(raw, { local: true });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
    };
    const first = await raw.request({ id: 1, method: 'acme/confirm', params: { item: 'b', _meta: meta } });
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'elicitation-0': { method: 'elicitation/create', params: expect.objectContaining({ message: 'Delete b?' }) } },
    });
    const answers = { 'elicitation-0': { action: 'accept', content: { ok: true } } };
    const done = await raw.request({
      id: 2,
      method: 'acme/confirm',
      params: { item: 'b', _meta: meta, inputResponses: answers, requestState: first.result!.requestState },
    });
    expect(done.result).toMatchObject({ resultType: 'complete', action: 'accept', content: { ok: true } });
    // The requestState is bound to the params: another item cannot reuse it.
    const other = await raw.request({
      id: 3,
      method: 'acme/confirm',
      params: { item: 'c', _meta: meta, inputResponses: answers, requestState: first.result!.requestState },
    });
    expect(other.error?.code).toBe(-32602);
    await app.close();
  });
});

describe('custom methods over HTTP with authentication (authenticate hook)', () => {
  /** `Authorization: Bearer subject;scope scope` -> AuthInfo. */
  const authenticate = ({ headers }: { headers: Record<string, string | string[] | undefined> }) => {
    const value = headers.authorization;
    if (typeof value !== 'string') return undefined;
    const [subject, scopes = ''] = value.replace('Bearer ', '').split(';');
    return { subject, scopes: scopes.split(' ').filter(Boolean) };
  };

  it('answers a caller without the scopes with 403 (no Bearer challenge: this server has no OAuth), in both eras; serves one with them', async () => {
    const { app } = await start();
    app.addMethod('acme/admin', (_, ctx) => ({ who: ctx.auth?.subject }), { scopes: ['admin'] });
    const callback = httpTransport(app, { sessions: false, responseMode: 'json', authenticate }).callback();
    const legacy = (token: string) =>
      request(callback)
        .post('/mcp')
        .set({ Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', Authorization: `Bearer ${token}` })
        .send({ jsonrpc: '2.0', id: 1, method: 'acme/admin', params: {} });
    const denied = await legacy('bob;read');
    expect(denied.status).toBe(403);
    expect(denied.headers['www-authenticate']).toBeUndefined();
    expect(denied.body.error).toMatchObject({ code: -32003, data: { requiredScopes: ['admin'] } });
    const served = await legacy('alice;admin');
    expect([served.status, served.body.result]).toEqual([200, { who: 'alice' }]);

    const body = perRequestBody('acme/admin');
    const modern = (token: string) =>
      request(callback)
        .post('/mcp')
        .set({ ...perRequestHeaders(body), authorization: `Bearer ${token}` })
        .send(body);
    expect((await modern('bob;read')).status).toBe(403);
    const ok = await modern('alice;admin');
    expect([ok.status, ok.body.result]).toEqual([200, expect.objectContaining({ resultType: 'complete', who: 'alice' })]);
    await app.close();
  });
});
