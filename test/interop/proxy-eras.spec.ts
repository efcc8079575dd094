import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpApplication } from '../../src';
import { sseClientTransport, type McpClientTransport } from '../../src/client';
import { farOverBothTransports, GatewayModule, PER_REQUEST_FAR_SERVER, SDK_FAR_SERVER } from '../helpers/far-server';
import { perRequestClient, textOf } from '../helpers/per-request-client-suite';
import { sdk2 } from '../helpers/sdk2';
import { spawnHttpServer } from '../helpers/spawn-server';
import { deferred, waitFor } from '../helpers/wait-for';
import { proxy } from '../../src/compose';
import { httpServer } from '../../src/http';

/** A server log that keeps what it is told, so that a test can require that nothing went wrong. */
function recordingLogger() {
  const entries: { level: string; message: string; error?: unknown }[] = [];
  return {
    entries,
    problems: () => entries.filter((e) => e.level === 'error' || e.level === 'warn'),
    logger: {
      error: (message: string, error?: unknown) => void entries.push({ level: 'error', message, error }),
      warn: (message: string) => void entries.push({ level: 'warn', message }),
      info: (message: string) => void entries.push({ level: 'info', message }),
    },
  };
}

/**
 * The official SDK 2.x client in the 2026-07-28 era in front of the proxy (stateless HTTP, MRTR),
 * an SDK 1.x server behind it (initialize-based, server→client requests on the call's stream).
 */
describe.each(farOverBothTransports(SDK_FAR_SERVER))(
  'a 2026-07-28 client in front of a proxied SDK 1.x server reached over %s',
  (_name, open) => {
    let app: McpApplication;
    let stopFar: () => Promise<void>;
    let connected: ReturnType<typeof perRequestClient>;
    const log = recordingLogger();

    beforeAll(async () => {
      const far = await open();
      stopFar = far.stop;
      app = await McpApplication.create(GatewayModule, { logger: log.logger });
      await proxy(app, 'far', far.transport);
      const http = await app.listen(httpServer({ port: 0, host: '127.0.0.1' }));
      connected = perRequestClient({ mode: { pin: '2026-07-28' } });
      await connected.client.connect(new sdk2.StreamableHTTPClientTransport(new URL(http.url)));
    });
    afterAll(async () => {
      await connected?.client.close();
      await app?.close();
      await stopFar?.();
    });

    it('is served in the per-request era, and lists and calls the far tools', async () => {
      expect(connected.client.getProtocolEra()).toBe('modern');
      const names = (await connected.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['local', 'far_echo', 'far_askName', 'far_slow']));
      expect(textOf(await connected.client.callTool({ name: 'far_echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
      expect(textOf(await connected.client.callTool({ name: 'local', arguments: {} }))).toBe('served here');
    });

    it("turns the far server's elicitation into an input request, and answers it on the retry", async () => {
      const before = connected.asked.elicit;
      expect(textOf(await connected.client.callTool({ name: 'far_askName', arguments: {} }))).toBe('hello Alice');
      expect(connected.asked.elicit).toBe(before + 1);
      // The first round's far call (whose question the caller answers only on its retry) was cancelled, not left to fail.
      await waitFor(
        async () => JSON.parse(textOf(await connected.client.callTool({ name: 'far_lastCancelled', arguments: {} })))?.tool === 'askName',
      );
      // sampling and roots take the same road
      expect(textOf(await connected.client.callTool({ name: 'far_summarize', arguments: { text: 'long text' } }))).toBe(
        'summary: Paris (test-model)',
      );
      expect(textOf(await connected.client.callTool({ name: 'far_listRoots', arguments: {} }))).toBe('file:///work/a');
      expect(log.problems()).toEqual([]);
    });

    it('forwards progress from the far end', async () => {
      const seen: number[] = [];
      const result = await connected.client.callTool(
        { name: 'far_progress', arguments: { steps: 3 } },
        { onprogress: (p: { progress: number }) => void seen.push(p.progress) },
      );
      expect(textOf(result)).toBe('did 3 steps');
      expect(seen).toEqual([1, 2, 3]);
    });

    it('carries cancellation (the client drops its request) to the far end', async () => {
      const lastCancelled = async () => textOf(await connected.client.callTool({ name: 'far_lastCancelled', arguments: {} }));
      const before = await lastCancelled();
      const abort = new AbortController();
      const reached = deferred(); // the far server's slow handler reports progress 0 once it runs
      const call = connected.client.callTool(
        { name: 'far_slow', arguments: {} },
        { signal: abort.signal, onprogress: () => reached.resolve() },
      );
      await Promise.race([reached.promise, call]); // an answer first fails the test with it
      abort.abort('user gave up');
      await expect(call).rejects.toThrow();
      await waitFor(async () => (await lastCancelled()) !== before);
      expect(JSON.parse(await lastCancelled())).toMatchObject({ requestId: expect.anything(), tool: 'slow' });
      expect(log.problems()).toEqual([]);
    });
  },
);

/** A far server of the 2024-11-05 era (HTTP+SSE), reached through the SDK's SSEClientTransport and mcpkit's own, with clients of both eras in front. */
describe.each([
  ["the SDK's SSEClientTransport", (url: URL): McpClientTransport => new SSEClientTransport(url)],
  ["mcpkit's sseClientTransport", (url: URL): McpClientTransport => sseClientTransport(url)],
])('proxying an SDK 1.x server reached over HTTP+SSE (2024-11-05) through %s', (_name, transport) => {
  let app: McpApplication;
  let far: Awaited<ReturnType<typeof spawnHttpServer>>;
  let url: string;
  const log = recordingLogger();

  beforeAll(async () => {
    far = await spawnHttpServer(SDK_FAR_SERVER, { FAR_TRANSPORT: 'sse' });
    app = await McpApplication.create(GatewayModule, { logger: log.logger });
    await proxy(app, 'far', transport(new URL('/sse', far.url)));
    url = (await app.listen(httpServer({ port: 0, host: '127.0.0.1' }))).url;
  });
  afterAll(async () => {
    await app?.close();
    await far?.stop();
  });

  it('serves the far tools to a 1.x client, with elicitation through two hops and list changes followed', async () => {
    const client = new Client({ name: 'sdk1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
    let listChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void listChanged++);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['local', 'far_echo', 'far_askName', 'far_enableHidden']));
    expect(names).not.toContain('far_hidden');
    expect(textOf((await client.callTool({ name: 'far_echo', arguments: { text: 'old' } })) as { content: unknown })).toBe('echo: old');
    expect(textOf((await client.callTool({ name: 'far_askName', arguments: {} })) as { content: unknown })).toBe('hello Ada');
    const progress: number[] = [];
    await client.callTool({ name: 'far_progress', arguments: { steps: 2 } }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
    });
    expect(progress).toEqual([1, 2]);
    expect(textOf((await client.callTool({ name: 'far_enableHidden', arguments: {} })) as { content: unknown })).toBe('enabled');
    await waitFor(() => listChanged > 0);
    expect(textOf((await client.callTool({ name: 'far_hidden', arguments: {} })) as { content: unknown })).toBe('found me');
    await client.close();
  });

  it('serves them to a 2026-07-28 client too (elicitation as an input request)', async () => {
    const { client, asked } = perRequestClient({ mode: { pin: '2026-07-28' } });
    await client.connect(new sdk2.StreamableHTTPClientTransport(new URL(url)));
    expect(textOf(await client.callTool({ name: 'far_askName', arguments: {} }))).toBe('hello Alice');
    expect(asked.elicit).toBe(1);
    expect(textOf(await client.callTool({ name: 'far_listRoots', arguments: {} }))).toBe('file:///work/a');
    await client.close();
    expect(log.problems()).toEqual([]);
  });
});

/** A far server of the 2026-07-28 era only (mcpkit, eras: 'per-request', spawned), with clients of both eras in front. */
describe.each(farOverBothTransports(PER_REQUEST_FAR_SERVER))('proxying a 2026-07-28 mcpkit server reached over %s', (name, open) => {
  let app: McpApplication;
  let stopFar: () => Promise<void>;
  let url: string;
  const log = recordingLogger();
  const seen = async (call: (name: string, args: Record<string, unknown>) => Promise<unknown>, tag: string) =>
    JSON.parse(textOf((await call('far_seen', { tag })) as { content: unknown })) as Record<string, unknown>;

  beforeAll(async () => {
    const far = await open();
    stopFar = far.stop;
    app = await McpApplication.create(GatewayModule, { logger: log.logger });
    await proxy(app, 'far', far.transport);
    url = (await app.listen(httpServer({ port: 0, host: '127.0.0.1' }))).url;
  });
  afterAll(async () => {
    await app?.close();
    await stopFar?.();
  });

  it('serves a 2026-07-28 client: list, call, elicitation through two input rounds, progress, cancellation', async () => {
    const { client, asked } = perRequestClient({ mode: { pin: '2026-07-28' } });
    await client.connect(new sdk2.StreamableHTTPClientTransport(new URL(url)));
    const call = (n: string, args: Record<string, unknown>, options?: object) => client.callTool({ name: n, arguments: args }, options);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['local', 'far_echo', 'far_askName', 'far_steps', 'far_sleeper']),
    );
    expect(textOf(await call('far_echo', { text: 'hi' }))).toBe('echo: hi');
    // Arguments the far tool mirrors into Mcp-Param-* headers reach it with them (over HTTP it refuses a call without).
    expect(textOf(await call('far_route', { region: 'Zürich', priority: 2 }))).toBe('routed to Zürich at 2');
    // The far server is served as 2026-07-28, for the proxy.
    expect(JSON.parse(textOf(await call('far_whoami', {})))).toEqual({ version: '2026-07-28', client: 'gateway', subject: null });
    expect(textOf(await call('far_askName', {}))).toBe('hello Alice');
    expect(asked.elicit).toBe(1);
    // Several input rounds at the far end, each one a round of the client's request: the far
    // handler's state (ctx.once) carries over, so its side effect happens once.
    const ordered = `proxy-modern-order-${name}`;
    expect(JSON.parse(textOf(await call('far_order', { tag: ordered })))).toEqual({
      orderId: 'order-1',
      confirmed: true,
      sampled: 'Paris',
      roots: ['file:///work/a'],
    });
    expect(await seen(call, ordered)).toMatchObject({ onceRuns: 1 });
    expect(asked).toMatchObject({ elicit: 2, sample: 1, roots: 1 });
    const progress: number[] = [];
    expect(textOf(await call('far_steps', { steps: 3 }, { onprogress: (p: { progress: number }) => void progress.push(p.progress) }))).toBe(
      '3 steps',
    );
    expect(progress).toEqual([1, 2, 3]);
    const tag = `proxy-modern-${name}`;
    const abort = new AbortController();
    const sleeping = call('far_sleeper', { tag }, { signal: abort.signal });
    await waitFor(async () => (await seen(call, tag)).started === true);
    abort.abort('enough');
    await expect(sleeping).rejects.toThrow();
    await waitFor(async () => (await seen(call, tag)).cancelled === true);
    await client.close();
    expect(log.problems()).toEqual([]);
  });

  it('serves a 1.x client (2025-11-25 session): its elicitation, sampling and roots answer the far input requests', async () => {
    const client = new Client({ name: 'sdk1', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {}, roots: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada', ok: true } }));
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      model: 'm',
      content: { type: 'text', text: 'Rome' },
    }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///legacy' }] }));
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const call = (n: string, args: Record<string, unknown>) => client.callTool({ name: n, arguments: args });
    const asked = await call('far_askName', {});
    expect(textOf(asked as { content: unknown })).toBe('hello Ada');
    // What describes the far server's 2026-07-28 response (its serverInfo, resultType) is not passed on as content.
    expect(asked).not.toHaveProperty('resultType');
    expect(asked).not.toHaveProperty(['_meta', 'io.modelcontextprotocol/serverInfo']);
    const tag = `proxy-legacy-front-${name}`;
    expect(JSON.parse(textOf((await call('far_order', { tag })) as { content: unknown }))).toEqual({
      orderId: 'order-1',
      confirmed: true,
      sampled: 'Rome',
      roots: ['file:///legacy'],
    });
    expect(await seen(call, tag)).toMatchObject({ onceRuns: 1 });
    // The far server's list changes, heard on the proxy's subscriptions/listen stream, reach the client.
    let listChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void listChanged++);
    expect(textOf((await call('far_touchTools', {})) as { content: unknown })).toBe('touched');
    await waitFor(() => listChanged > 0);
    await client.close();
    expect(log.problems()).toEqual([]);
  });
});
