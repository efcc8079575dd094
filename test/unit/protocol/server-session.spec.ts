import type { JsonRpcMessage, RequestId } from '../../../src/mcp/json-rpc';
import { McpError } from '../../../src/mcp/mcp.error';
import type { MethodHandler, RequestScope } from '../../../src/protocol/request-scope';
import type { EnginePort } from '../../../src/protocol/engine-port';
import { ServerSession } from '../../../src/protocol/server-session';

type Sent = { message: JsonRpcMessage; related?: RequestId; final?: boolean };

function setup(handlers: Record<string, MethodHandler> = {}, options: ConstructorParameters<typeof ServerSession>[2] = {}) {
  const sent: Sent[] = [];
  const errors: string[] = [];
  const host: EnginePort = {
    handler: (method) => ({ ping: () => ({}), ...handlers })[method],
    clientRequestTimeoutMs: 1_000,
    capabilities: { tools: {} },
    eras: 'handshake',
    logError: (message) => errors.push(message),
  };
  const session = new ServerSession(host, (message, related, final) => void sent.push({ message, related, final }), options);
  return { session, sent, errors };
}

const req = (id: RequestId, method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0' as const, id, method, params });

describe('ServerSession', () => {
  it('refuses requests other than initialize and ping before initialize, unless told not to', async () => {
    const { session } = setup({ work: () => 'done' });
    expect(await session.handleRequest(req(1, 'work'))).toMatchObject({ error: { code: -32600 } });
    expect(await session.handleRequest(req(2, 'ping'))).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    const open = setup({ work: () => 'done' }, { requireInitialize: false }).session;
    expect(await open.handleRequest(req(1, 'work'))).toEqual({ jsonrpc: '2.0', id: 1, result: 'done' });
  });

  it('answers an unknown method with -32601, a reused id in flight with -32600', async () => {
    let release!: () => void;
    const { session } = setup({ slow: () => new Promise<string>((r) => (release = () => r('ok'))) }, { requireInitialize: false });
    expect(await session.handleRequest(req(1, 'nope'))).toMatchObject({ error: { code: -32601, message: 'Method not found: nope' } });
    const first = session.handleRequest(req(7, 'slow'));
    expect(await session.handleRequest(req(7, 'slow'))).toMatchObject({ error: { code: -32600 } });
    release();
    expect(await first).toMatchObject({ result: 'ok' });
  });

  it('maps an McpError to its code and anything else to -32603 without details, logged', async () => {
    const { session, errors } = setup(
      {
        refuse: () => {
          throw McpError.invalidParams('bad x');
        },
        crash: () => {
          throw new Error('secret detail');
        },
      },
      { requireInitialize: false },
    );
    expect(await session.handleRequest(req(1, 'refuse'))).toMatchObject({ error: { code: -32602, message: 'bad x' } });
    const crashed = await session.handleRequest(req(2, 'crash'));
    expect(crashed).toMatchObject({ error: { code: -32603, message: 'Internal error' } });
    expect(JSON.stringify(crashed)).not.toContain('secret');
    expect(errors).toEqual(['Unhandled error in crash']);
  });

  it('aborts a request the client cancels and sends no answer for it', async () => {
    let scope!: RequestScope;
    const { session, sent } = setup(
      {
        wait: (_p, s) => (
          (scope = s),
          new Promise((_r, reject) =>
            s.signal.addEventListener('abort', () =>
              reject(s.signal.reason instanceof Error ? s.signal.reason : new Error(String(s.signal.reason))),
            ),
          )
        ),
      },
      { requireInitialize: false },
    );
    const running = session.receive(req(3, 'wait'));
    await new Promise((r) => setImmediate(r));
    expect(session.runs(3)).toBe(true);
    await session.receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'user' } });
    await running;
    expect(scope.cancelled).toBe(true);
    expect(sent).toEqual([]);
    expect(session.runs(3)).toBe(false);
  });

  it('answers message transport requests, runs a request until it settles, and resolves deliver once answered', async () => {
    const { session, sent } = setup(
      {
        now: () => 'now',
        later: async () => 'later',
        refuse: () => {
          throw McpError.invalidParams('bad x');
        },
      },
      { requireInitialize: false },
    );
    await Promise.all([session.deliver(req(1, 'now')), session.deliver(req(2, 'refuse'))]);
    expect(sent).toEqual(
      expect.arrayContaining([
        { message: { jsonrpc: '2.0', id: 1, result: 'now' }, related: 1, final: true },
        { message: { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'bad x' } }, related: 2, final: true },
      ]),
    );
    expect(sent).toHaveLength(2);
    expect(session.runs(1)).toBe(false);
    const later = session.deliver(req(3, 'later'));
    expect(session.runs(3)).toBe(true);
    await later;
    expect(sent[2]).toEqual({ message: { jsonrpc: '2.0', id: 3, result: 'later' }, related: 3, final: true });
    expect(session.runs(3)).toBe(false);
  });

  it('deliver never rejects: a sink that fails, at once or later, is logged', async () => {
    const errors: string[] = [];
    const host: EnginePort = {
      handler: (method) => ({ now: () => 'now', later: async () => 'later' })[method as 'now'],
      clientRequestTimeoutMs: 1_000,
      eras: 'handshake',
      capabilities: {},
      logError: (message) => errors.push(message),
    };
    let fail: () => void | Promise<void> = () => {
      throw new Error('closed pipe');
    };
    const session = new ServerSession(host, () => fail(), { requireInitialize: false });
    await session.deliver(req(1, 'now'));
    expect(errors).toEqual(['Failed to send a message']);
    fail = () => Promise.reject(new Error('closed pipe'));
    await session.deliver(req(2, 'later'));
    expect(errors).toEqual(['Failed to send a message', 'Failed to send a message']);
  });

  it('marks the final response final and an intermediate result not final', async () => {
    const { session, sent } = setup(
      { stream: async (_p, s) => (await s.outbound.sendIntermediateResult(s.id, { part: 1 }), { part: 2 }) },
      { requireInitialize: false },
    );
    await session.receive(req('s', 'stream'));
    expect(sent).toEqual([
      { message: { jsonrpc: '2.0', id: 's', result: { part: 1 } }, related: 's', final: false },
      { message: { jsonrpc: '2.0', id: 's', result: { part: 2 } }, related: 's', final: true },
    ]);
  });

  it('correlates requests to the client with their answers, and fails them on error, timeout, abort and close', async () => {
    const { session, sent } = setup();
    const ok = session.request('roots/list', {}, { relatedRequestId: 9 });
    const okId = (sent.at(-1)!.message as { id: RequestId }).id;
    expect(sent.at(-1)!.related).toBe(9);
    expect(session.awaits(okId)).toBe(true);
    await session.receive({ jsonrpc: '2.0', id: okId, result: { roots: [] } });
    await expect(ok).resolves.toEqual({ roots: [] });

    const failing = session.request('sampling/createMessage', {});
    await session.receive({ jsonrpc: '2.0', id: (sent.at(-1)!.message as { id: RequestId }).id, error: { code: -1, message: 'declined' } });
    await expect(failing).rejects.toMatchObject({ code: -1, message: 'declined' });

    const late = session.request('roots/list', {}, { timeoutMs: 5 });
    await expect(late).rejects.toMatchObject({ code: -32001 });
    expect(sent.at(-1)!.message).toMatchObject({ method: 'notifications/cancelled' });

    const controller = new AbortController();
    const aborted = session.request('roots/list', {}, { signal: controller.signal });
    controller.abort(McpError.invalidRequest('stop'));
    await expect(aborted).rejects.toMatchObject({ message: 'stop' });

    const pending = session.request('roots/list', {});
    session.close();
    await expect(pending).rejects.toMatchObject({ message: 'Session closed' });
    await expect(session.request('roots/list', {})).rejects.toMatchObject({ message: 'Session closed' });
  });

  it('keeps one PeerState, changed only through initialize, setLogLevel and restore', async () => {
    const changes: unknown[] = [];
    const { session } = setup({}, { id: 'abc' });
    session.onStateChange = (c) => changes.push(c);
    const before = session.peer;
    session.initialize(
      { protocolVersion: '2025-06-18', clientCapabilities: { roots: {} }, clientInfo: { name: 'c', version: '1' } },
      { tools: {} },
    );
    expect(session.peer).toEqual({
      protocolVersion: '2025-06-18',
      clientCapabilities: { roots: {} },
      clientInfo: { name: 'c', version: '1' },
      sessionId: 'abc',
    });
    expect(session.peer).not.toBe(before);
    session.setLogLevel('warning');
    expect(session.peer.logLevel).toBe('warning');
    session.subscribe('x://1');
    expect(changes).toEqual([{ logLevel: 'warning' }, { subscribe: 'x://1' }]);
    session.applyRemoteChange({ logLevel: 'debug' });
    expect(session.peer.logLevel).toBe('debug');
    expect(changes).toHaveLength(2);

    const replica = setup({}, { id: 'abc' }).session;
    replica.restore(session.snapshot());
    expect(replica.peer).toEqual(session.peer);
    expect(replica.initialized).toBe(true);
    expect(replica.advertised).toEqual({ tools: {} });
  });

  it('gives each request an owner: the authenticated principal, else the anonymous owner, else the session', async () => {
    const owners: string[] = [];
    const handlers = { who: ((_p, s) => (owners.push(s.owner), 'ok')) as MethodHandler };
    await setup(handlers, { requireInitialize: false, id: 'sid' }).session.handleRequest(req(1, 'who'), { auth: { subject: 'ana' } });
    // Two callers naming no subject, distinguished by their client ids (they once shared an owner).
    await setup(handlers, { requireInitialize: false, id: 'sid' }).session.handleRequest(req(1, 'who'), {
      auth: { clientId: 'a', issuer: 'https://as' },
    });
    await setup(handlers, { requireInitialize: false, id: 'sid' }).session.handleRequest(req(1, 'who'), {
      auth: { clientId: 'b', issuer: 'https://as' },
    });
    await setup(handlers, { requireInitialize: false, anonymousOwner: 'anonymous' }).session.handleRequest(req(1, 'who'));
    await setup(handlers, { requireInitialize: false, id: 'sid' }).session.handleRequest(req(1, 'who'));
    const local = setup(handlers, { requireInitialize: false }).session;
    await local.handleRequest(req(1, 'who'));
    await local.handleRequest(req(2, 'who'));
    expect(owners.slice(0, 5)).toEqual([
      'p:sub:ana@',
      'p:client:a@https%3A%2F%2Fas',
      'p:client:b@https%3A%2F%2Fas',
      'anonymous',
      'ses:sid',
    ]);
    expect(owners[5]).toMatch(/^ses:[\w-]{16}$/);
    expect(owners[6]).toBe(owners[5]);
  });

  it('tells whether unsolicited messages reach the client', () => {
    let open = false;
    const { session } = setup({}, { reachable: () => open });
    expect(session.reachable).toBe(false);
    open = true;
    expect(session.reachable).toBe(true);
    session.close();
    expect(session.reachable).toBe(false);
  });
});
