import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpModule, Prompt, Resource, Tool } from '../../../src';
import { ACCEPT_BOTH } from '../../helpers/http-app';
import { SseReader } from '../../helpers/sse-client';
import { waitFor } from '../../helpers/wait-for';
import { internalsOf, registryOf } from '../../../src/kernel/mcp-application';
import { mount } from '../../../src/compose';
import { httpServer } from '../../../src/http';

const SUB = 'io.modelcontextprotocol/subscriptionId';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

@injectable()
class WatchedTools {
  @Tool({ description: 'One' })
  one(_: EmptyInput) {
    return 'one';
  }

  @Tool({ description: 'Two' })
  two(_: EmptyInput) {
    return 'two';
  }

  @Resource({ uri: 'test://watched', mimeType: 'text/plain' })
  watched() {
    return 'watched';
  }

  @Resource({ uri: 'test://other', mimeType: 'text/plain' })
  other() {
    return 'other';
  }

  @Resource({ uriTemplate: 'test://items/{id}', name: 'item', mimeType: 'text/plain' })
  item({ id }: { id: string }) {
    return id;
  }
}

@injectable()
class LatePrompts {
  @Prompt({ description: 'Added at runtime' })
  late() {
    return 'late';
  }
}

@McpModule({ providers: [WatchedTools], server: { name: 'listen-test', version: '1.0.0' } })
class ListenModule {}

type Frame = {
  jsonrpc: string;
  id?: unknown;
  method?: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  result?: Record<string, unknown>;
  error?: { code: number };
};

/** subscriptions/listen (MCP 2026-07-28) over a real loopback socket, with raw fetch. */
describe('subscriptions/listen over Streamable HTTP', () => {
  let app: McpApplication;
  let url: string;
  const errors: string[] = [];
  const open: SseReader[] = [];

  beforeEach(async () => {
    errors.length = 0;
    app = await McpApplication.create(ListenModule, {
      logger: { error: (m) => errors.push(m), warn: () => undefined, info: () => undefined },
    });
    ({ url } = await app.listen(httpServer({ port: 0, keepAliveMs: 0 })));
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((r) => r.disconnect()));
    await app.close();
    expect(errors).toEqual([]);
  });

  function headers(method: string) {
    return { accept: ACCEPT_BOTH, 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  }

  async function listen(id: string | number, notifications: unknown): Promise<SseReader> {
    const body = { jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: ENVELOPE, notifications } };
    const reader = await SseReader.open(url, { method: 'POST', headers: headers('subscriptions/listen'), body: JSON.stringify(body) });
    open.push(reader);
    return reader;
  }

  const frames = (r: SseReader) => r.messages as Frame[];
  const methods = (r: SseReader) => frames(r).map((f) => f.method);

  it('acknowledges first, as an SSE frame flushed at once, with the subset the server honours, tagged with the request id', async () => {
    const stream = await listen('L-1', {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['test://watched', 'test://items/7', 'test://missing', 'test://watched'],
      futureKind: true,
    });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream');
    // Nothing else is sent or changes: the ack arrives by itself while the stream stays open.
    await stream.waitFor((r) => r.messages.length >= 1);
    expect(frames(stream)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        // No prompts here: that kind is not honoured; an unknown URI is dropped, a duplicate named once.
        params: {
          _meta: { [SUB]: 'L-1' },
          notifications: {
            toolsListChanged: true,
            resourcesListChanged: true,
            resourceSubscriptions: ['test://watched', 'test://items/7'],
          },
        },
      },
    ]);
    expect(stream.ended).toBe(false);
  });

  it('delivers the list changes and resource updates the filter names, each tagged, and nothing else', async () => {
    const tools = await listen(11, { toolsListChanged: true, resourceSubscriptions: ['test://watched'] });
    const resources = await listen(12, { resourcesListChanged: true, resourceSubscriptions: ['test://items/7'] });
    await tools.waitFor((r) => r.messages.length >= 1);
    await resources.waitFor((r) => r.messages.length >= 1);

    app.disable('tool', 'two');
    await tools.waitFor((r) => methods(r).includes('notifications/tools/list_changed'));
    await app.notifyResourceUpdated('test://other');
    await app.notifyResourceUpdated('test://watched');
    await app.notifyResourceUpdated('test://items/7');
    app.disable('resource', 'test://other');
    await tools.waitFor((r) => methods(r).includes('notifications/resources/updated'));
    await resources.waitFor((r) => methods(r).includes('notifications/resources/list_changed'));

    expect(frames(tools).slice(1)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 11 } } },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://watched', _meta: { [SUB]: 11 } } },
    ]);
    expect(frames(resources).slice(1)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://items/7', _meta: { [SUB]: 12 } } },
      { jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: { _meta: { [SUB]: 12 } } },
    ]);
  });

  it('tells listeners of tools, resources and prompts registered, updated and removed at runtime, and of mounts', async () => {
    const stream = await listen(31, { toolsListChanged: true, resourcesListChanged: true });
    await stream.waitFor((r) => r.messages.length >= 1);
    app.addTool({ name: 'dynamic', handler: () => 'dyn' });
    await stream.waitFor((r) => methods(r).filter((m) => m === 'notifications/tools/list_changed').length === 1);
    app.addResource({ uri: 'test://dynamic', name: 'dynamic', handler: () => 'dyn' });
    await stream.waitFor((r) => methods(r).includes('notifications/resources/list_changed'));
    app.updateTool('dynamic', { description: 'changed' });
    await stream.waitFor((r) => methods(r).filter((m) => m === 'notifications/tools/list_changed').length === 2);
    app.removeTool('dynamic');
    await stream.waitFor((r) => methods(r).filter((m) => m === 'notifications/tools/list_changed').length === 3);
    await mount(app, 'more', ListenModule);
    await stream.waitFor((r) => methods(r).filter((m) => m === 'notifications/tools/list_changed').length === 4);
    expect(
      registryOf(app)
        .toolDescriptors()
        .map((t) => t.name),
    ).toEqual(['one', 'two', 'more_one', 'more_two']);
  });

  it('tells listeners of providers added at runtime, and of tools enabled again', async () => {
    app.disable('tool', 'two');
    const stream = await listen(21, { toolsListChanged: true, promptsListChanged: true });
    await stream.waitFor((r) => r.messages.length >= 1);
    app.enable('tool', 'two');
    await stream.waitFor((r) => methods(r).includes('notifications/tools/list_changed'));
    // The server had no prompts when the stream opened: prompt changes were not honoured on it.
    app.addProviders(LatePrompts);
    const later = await listen(22, { promptsListChanged: true });
    await later.waitFor((r) => r.messages.length >= 1);
    expect(frames(later)[0].params).toEqual({ _meta: { [SUB]: 22 }, notifications: { promptsListChanged: true } });
    app.removePrompt('late');
    await later.waitFor((r) => methods(r).includes('notifications/prompts/list_changed'));
    expect(methods(stream)).not.toContain('notifications/prompts/list_changed');
  });

  it('ends every stream on app.close() with a final complete result carrying the subscription id', async () => {
    const stream = await listen(31, { toolsListChanged: true });
    await stream.waitFor((r) => r.messages.length >= 1);
    await app.close();
    await stream.finished();
    const last = frames(stream).at(-1)!;
    expect(last).toMatchObject({ jsonrpc: '2.0', id: 31, result: { resultType: 'complete', _meta: { [SUB]: 31 } } });
    expect(frames(stream)).toHaveLength(2);
  });

  it('stops delivering to a client that closed its stream, and keeps serving the others', async () => {
    const gone = await listen(41, { toolsListChanged: true });
    const staying = await listen(42, { toolsListChanged: true });
    await gone.waitFor((r) => r.messages.length >= 1);
    await staying.waitFor((r) => r.messages.length >= 1);
    const hub = internalsOf(app).engine.subscriptions;
    expect(hub.size).toBe(2);
    await gone.disconnect();
    await waitFor(() => hub.size === 1, { what: 'the closed stream to be unregistered' });
    app.disable('tool', 'one');
    await staying.waitFor((r) => methods(r).includes('notifications/tools/list_changed'));
    expect(gone.messages).toHaveLength(1);
    // The disconnect counts as a cancellation: no request stays in flight.
    expect(internalsOf(app).engine.inflightCount).toBe(1);
  });

  it('writes keep-alive comments on a quiet stream', async () => {
    await app.close();
    app = await McpApplication.create(ListenModule, {
      logger: { error: (m) => errors.push(m), warn: () => undefined, info: () => undefined },
    });
    ({ url } = await app.listen(httpServer({ port: 0, keepAliveMs: 20 })));
    const stream = await listen(51, { toolsListChanged: true });
    await stream.waitFor((r) => r.comments >= 2);
    expect(stream.messages).toHaveLength(1);
  });

  it('answers -32602 for a malformed filter, and keeps serving', async () => {
    const bad: unknown[] = [
      undefined,
      'all',
      { toolsListChanged: 'yes' },
      { resourceSubscriptions: 'test://watched' },
      { resourceSubscriptions: [1] },
      { resourceSubscriptions: Array.from({ length: 257 }, (_, i) => `test://items/${i}`) },
      { resourceSubscriptions: [`test://items/${'x'.repeat(5000)}`] },
    ];
    for (const [i, notifications] of bad.entries()) {
      const body = {
        jsonrpc: '2.0',
        id: 60 + i,
        method: 'subscriptions/listen',
        params: { _meta: ENVELOPE, ...(notifications === undefined ? {} : { notifications }) },
      };
      const res = await fetch(url, { method: 'POST', headers: headers('subscriptions/listen'), body: JSON.stringify(body) });
      const answer = (await res.json()) as Frame;
      expect(answer).toMatchObject({ id: 60 + i, error: { code: -32602 } });
    }
    const good = await listen(70, { toolsListChanged: true });
    await good.waitFor((r) => r.messages.length >= 1);
    expect(methods(good)).toEqual(['notifications/subscriptions/acknowledged']);
  });
});
