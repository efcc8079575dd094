import request from 'supertest';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpContext, McpModule, Tool } from '../../../src';
import * as httpSessionModule from '../../../src/transports/http/http-session';
import * as serverSessionModule from '../../../src/protocol/server-session';
import { ACCEPT_BOTH, initializeBody, parseSse } from '../../helpers/http-app';
import { perRequestBody, perRequestHeaders } from '../../helpers/per-request-http';
import { deferred, waitFor } from '../../helpers/wait-for';
import { internalsOf } from '../../../src/kernel/mcp-application';
import { httpServer, httpTransport } from '../../../src/http';
import type { RequestListener } from '../../../src/http';

/*
 * Every HttpSession and ServerSession built counts here (the modules are replaced by counting
 * subclasses): a stateless request must be served without either.
 */
jest.mock('../../../src/transports/http/http-session', () => {
  const actual = jest.requireActual<typeof import('../../../src/transports/http/http-session')>(
    '../../../src/transports/http/http-session',
  );
  class CountedHttpSession extends actual.HttpSession {
    static built = 0;
    constructor(...args: ConstructorParameters<typeof actual.HttpSession>) {
      super(...args);
      CountedHttpSession.built++;
    }
  }
  return { ...actual, HttpSession: CountedHttpSession };
});
jest.mock('../../../src/protocol/server-session', () => {
  const actual = jest.requireActual<typeof import('../../../src/protocol/server-session')>('../../../src/protocol/server-session');
  class CountedServerSession extends actual.ServerSession {
    static built = 0;
    constructor(...args: ConstructorParameters<typeof actual.ServerSession>) {
      super(...args);
      CountedServerSession.built++;
    }
  }
  return { ...actual, ServerSession: CountedServerSession };
});

const built = () => ({
  http: (httpSessionModule.HttpSession as unknown as { built: number }).built,
  server: (serverSessionModule.ServerSession as unknown as { built: number }).built,
});

@injectable()
class StatelessTools {
  @Tool({ description: 'Answers at once' })
  quick(_: EmptyInput) {
    return 'quick';
  }

  @Tool({ description: 'Reports progress, then answers (an SSE answer)' })
  async stepping(_: EmptyInput, ctx: McpContext) {
    await ctx.progress(1, 2);
    return 'stepped';
  }

  @Tool({ description: 'Asks the client (an InputRequiredResult in 2026-07-28)' })
  async asking(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } });
    return answer.action;
  }

  @Tool({ description: 'Sends its progress without waiting, then answers synchronously' })
  eager(_: EmptyInput, ctx: McpContext) {
    void ctx.progress(1, 2);
    return 'eager';
  }

  @Tool({ description: 'Throws synchronously' })
  broken(_: EmptyInput): string {
    throw new Error('broken inside');
  }

  readonly started = deferred();
  readonly aborted = deferred<unknown>();

  @Tool({ description: 'Runs until its request is cancelled' })
  waiting(_: EmptyInput, ctx: McpContext) {
    this.started.resolve();
    return new Promise<string>((resolve) =>
      ctx.signal.addEventListener('abort', () => {
        this.aborted.resolve(ctx.signal.reason);
        resolve('aborted');
      }),
    );
  }
}

@McpModule({ providers: [StatelessTools], server: { name: 'stateless-test', version: '1.0.0' } })
class StatelessModule {}

const call = (id: number, name: string, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {}, ...(meta ? { _meta: meta } : {}) },
});

/** "A stateless request is served without creating a session", in both eras. */
describe('stateless HTTP requests', () => {
  let app: McpApplication;
  let callback: RequestListener;

  beforeEach(async () => {
    app = await McpApplication.create(StatelessModule, {
      logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
    });
    callback = httpTransport(app, { sessions: false }).callback();
  });
  afterEach(() => app.close());

  const post = (body: unknown, headers: Record<string, string> = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }) =>
    request(callback).post('/mcp').set(headers).send(JSON.stringify(body));

  it('serves 2025-11-25 requests and notifications (sessions: false) without a session', async () => {
    const before = built();
    const legacy = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2025-11-25' };
    const init = await post(initializeBody(1), legacy);
    expect(init.body.result.serverInfo.name).toBe('stateless-test');
    expect((await post(call(2, 'quick'), legacy)).body.result.content[0].text).toBe('quick');
    const sse = await post(call(3, 'stepping', { progressToken: 't' }), legacy);
    expect(sse.headers['content-type']).toBe('text/event-stream');
    const events = parseSse(sse.text).map((e) => JSON.parse(e.data || '{}') as Record<string, unknown>);
    expect(events.map((e) => e.method ?? e.id)).toEqual(['notifications/progress', 3]);
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, legacy)).status).toBe(202);
    expect((await post({ jsonrpc: '2.0', id: 's1', result: {} }, legacy)).status).toBe(202);
    expect(built()).toEqual(before);
  });

  it('serves 2026-07-28 requests and notifications without a session', async () => {
    const before = built();
    const quick = perRequestBody('tools/call', { name: 'quick', arguments: {} });
    expect((await post(quick, perRequestHeaders(quick))).body.result).toMatchObject({ resultType: 'complete' });
    const stepping = perRequestBody('tools/call', {
      name: 'stepping',
      arguments: {},
      _meta: { ...(perRequestBody('ping').params as { _meta: object })._meta, progressToken: 'p' },
    });
    const sse = await post(stepping, perRequestHeaders(stepping));
    expect(sse.headers['content-type']).toBe('text/event-stream');
    expect(sse.text).toContain('notifications/progress');
    const asking = perRequestBody('tools/call', { name: 'asking', arguments: {} });
    expect((await post(asking, perRequestHeaders(asking))).body.result).toMatchObject({ resultType: 'input_required' });
    const discover = perRequestBody('server/discover');
    expect((await post(discover, perRequestHeaders(discover))).body.result.supportedVersions).toContain('2026-07-28');
    const note = { jsonrpc: '2.0', method: 'notifications/roots/list_changed' };
    expect((await post(note, perRequestHeaders(note))).status).toBe(202);
    expect(built()).toEqual(before);
  });

  it('answers a handler that sent nothing before its answer as plain JSON, in both eras', async () => {
    const legacy = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2025-11-25' };
    const quick = await post(call(1, 'quick'), legacy);
    expect(quick.headers['content-type']).toMatch(/application\/json/);
    expect(quick.body.result.content).toEqual([{ type: 'text', text: 'quick' }]);
    const perRequestCall = perRequestBody('tools/call', { name: 'quick', arguments: {} }, 2);
    const modern = await post(perRequestCall, perRequestHeaders(perRequestCall));
    expect(modern.body.result.content).toEqual([{ type: 'text', text: 'quick' }]);
    // A synchronous throw is still the request's internal error, not a lost request.
    const broken = await post(call(3, 'broken'), legacy);
    expect(broken.status).toBe(200);
    expect(broken.body.result.isError ?? broken.body.error).toBeTruthy();
  });

  it('still streams a synchronous handler that sent a message before its answer', async () => {
    const legacy = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2025-11-25' };
    const res = await post(call(1, 'eager', { progressToken: 'p' }), legacy);
    expect(res.headers['content-type']).toMatch(/text\/event-stream/);
    const messages = parseSse(res.text).map((e) => JSON.parse(e.data) as Record<string, unknown>);
    expect(messages.map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'result']);
    expect(messages[1]).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'eager' }] } });
  });

  it('counts a stateless request in flight, and cancels it when its client leaves', async () => {
    const { url } = await app.listen(httpServer({ port: 0, sessions: false }));
    const before = built();
    const engine = internalsOf(app).engine;
    const tools = app.get(StatelessTools);
    const body = perRequestBody('tools/call', { name: 'waiting', arguments: {} });
    const client = new AbortController();
    const answer = fetch(url, { method: 'POST', headers: perRequestHeaders(body), body: JSON.stringify(body), signal: client.signal });
    await tools.started.promise;
    expect(engine.inflightCount).toBe(1);
    client.abort();
    await expect(answer).rejects.toThrow();
    expect(await tools.aborted.promise).toMatchObject({ message: 'Session closed' });
    await waitFor(() => engine.inflightCount === 0, { what: 'the cancelled request to end' });
    expect(built()).toEqual(before);
  });

  it('still builds a session for a 2025-11-25 initialize when sessions are on (the count works)', async () => {
    const withSessions = httpTransport(app).callback();
    const before = built();
    const init = await request(withSessions).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody(1));
    expect(init.headers['mcp-session-id']).toBeDefined();
    expect(built()).toEqual({ http: before.http + 1, server: before.server + 1 });
  });
});
