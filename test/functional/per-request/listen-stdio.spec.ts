import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpModule, RequireScopes, Resource, Tool } from '../../../src';
import { Frame, RawTransport as SharedRawTransport } from '../../helpers/raw-transport';
import { deferred, waitFor } from '../../helpers/wait-for';
import { internalsOf } from '../../../src/kernel/mcp-application';

const SUB = 'io.modelcontextprotocol/subscriptionId';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

@injectable()
class StdioListenTools {
  @Tool({ description: 'One' })
  one(_: EmptyInput) {
    return 'one';
  }

  @Resource({ uri: 'test://open', mimeType: 'text/plain' })
  open() {
    return 'open';
  }

  @Resource({ uri: 'test://secret', mimeType: 'text/plain' })
  @RequireScopes('secrets:read')
  secret() {
    return 'secret';
  }
}

@McpModule({ providers: [StdioListenTools], server: { name: 'listen-stdio', version: '1.0.0' } })
class StdioListenModule {}

/** The shared hand-driven transport, plus the frames of one subscription. */
class RawTransport extends SharedRawTransport {
  of(id: unknown): Frame[] {
    return this.sent.filter((f) => f.id === id || (f.params?._meta as Record<string, unknown> | undefined)?.[SUB] === id);
  }
}

/** subscriptions/listen on a message transport (stdio's way): many streams share one channel, tagged by id. */
describe('subscriptions/listen on a message transport (stdio)', () => {
  let app: McpApplication;
  const errors: string[] = [];

  beforeEach(async () => {
    errors.length = 0;
    app = await McpApplication.create(StdioListenModule, {
      shutdownTimeoutMs: 60_000,
      logger: { error: (m) => errors.push(m), warn: () => undefined, info: () => undefined },
    });
  });
  afterEach(async () => {
    await app.close();
    expect(errors).toEqual([]);
  });

  const listen = (t: RawTransport, id: unknown, notifications: unknown) =>
    t.deliver({ id, method: 'subscriptions/listen', params: { _meta: ENVELOPE, notifications } });

  it('multiplexes two streams on one channel, and notifications/cancelled ends one without an answer', async () => {
    const t = new RawTransport();
    app.connect(t, { local: true });
    listen(t, 1, { toolsListChanged: true });
    listen(t, 'two', { toolsListChanged: true, resourceSubscriptions: ['test://open', 'test://secret'] });
    await waitFor(() => t.of(1).length === 1 && t.of('two').length === 1);
    expect(t.of(1)[0]).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true } },
    });
    // The local user of stdio may read everything.
    expect(t.of('two')[0].params).toEqual({
      _meta: { [SUB]: 'two' },
      notifications: { toolsListChanged: true, resourceSubscriptions: ['test://open', 'test://secret'] },
    });

    t.deliver({ method: 'notifications/cancelled', params: { requestId: 1, reason: 'done' } });
    app.disable('tool', 'one');
    await waitFor(() => t.of('two').some((f) => f.method === 'notifications/tools/list_changed'));
    await app.notifyResourceUpdated('test://secret');
    expect(t.of('two').slice(1)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 'two' } } },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://secret', _meta: { [SUB]: 'two' } } },
    ]);
    // The cancelled stream got nothing more, not even a response.
    expect(t.of(1)).toHaveLength(1);

    await app.close();
    expect(t.of('two').at(-1)).toMatchObject({ id: 'two', result: { resultType: 'complete', _meta: { [SUB]: 'two' } } });
  });

  it('honours resource subscriptions only for resources the caller may read', async () => {
    const t = new RawTransport();
    app.connect(t, { auth: { subject: 'alice', scopes: [] } });
    listen(t, 5, { resourceSubscriptions: ['test://open', 'test://secret'] });
    await waitFor(() => t.of(5).length === 1);
    expect(t.of(5)[0].params).toEqual({ _meta: { [SUB]: 5 }, notifications: { resourceSubscriptions: ['test://open'] } });
    await app.notifyResourceUpdated('test://secret');
    await app.notifyResourceUpdated('test://open');
    await waitFor(() => t.of(5).length === 2);
    expect(t.of(5)[1]).toMatchObject({ method: 'notifications/resources/updated', params: { uri: 'test://open' } });
  });

  it('does not hold a hung-up connection open for its listen streams (they never end by themselves)', async () => {
    const t = new RawTransport();
    const closed = deferred();
    app.connect(t, { local: true, onClose: () => closed.resolve() });
    listen(t, 9, { toolsListChanged: true });
    await waitFor(() => t.of(9).length === 1);
    t.hangUp();
    // shutdownTimeoutMs is a minute: a drain waiting for the stream would outlast the test.
    await closed.promise;
    const hub = internalsOf(app).engine.subscriptions;
    expect(hub.size).toBe(0);
  });

  it('answers a handshake (initialized) session that sends subscriptions/listen with -32601', async () => {
    const t = new RawTransport();
    app.connect(t, { local: true });
    t.deliver({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await waitFor(() => t.sent.length === 1);
    t.deliver({ id: 2, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } });
    await waitFor(() => t.sent.length === 2);
    expect(t.sent[1]).toMatchObject({ id: 2, error: { code: -32601 } });
  });
});
