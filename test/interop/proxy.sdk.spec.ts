import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { McpApplication } from '../../src';
import { stdioClientTransport } from '../../src/client';
import { farOverBothTransports, farStdio, GatewayModule, SDK_FAR_SERVER } from '../helpers/far-server';
import { ROOT } from '../helpers/paths';
import { deferred, waitFor } from '../helpers/wait-for';
import { alive } from '../helpers/processes';
import { registryOf } from '../../src/kernel/mcp-application';
import { proxy, unmount } from '../../src/compose';
import { httpServer } from '../../src/http';
import type { ProxyTransport } from '../../src/compose';

type Text = { content: { type: string; text: string }[]; isError?: boolean };
const textOf = (r: unknown) => (r as Text).content.map((c) => c.text).join('');

/**
 * mcpkit proxies a server built with the official SDK 1.x (spawned: stdio or Streamable HTTP); the
 * official SDK client, connected to the proxy over real HTTP, uses every primitive of the far server.
 */
describe.each(farOverBothTransports(SDK_FAR_SERVER))('proxying an SDK 1.x server reached over %s', (_name, open) => {
  let app: McpApplication;
  let client: Client;
  let stopFar: () => Promise<void>;
  const elicited: unknown[] = [];
  const logs: unknown[] = [];
  let listChanged = 0;

  beforeAll(async () => {
    const far = await open();
    stopFar = far.stop;
    app = await McpApplication.create(GatewayModule);
    await proxy(app, 'far', far.transport);
    const http = await app.listen(httpServer({ port: 0, host: '127.0.0.1' }));
    client = new Client({ name: 'sdk-client', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {}, roots: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicited.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const first = request.params.messages[0].content as { type: string; text?: string };
      return {
        role: 'assistant',
        model: 'test-model',
        content: { type: 'text', text: `short(${first.type === 'text' ? first.text : '?'})` },
      };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work/a' }, { uri: 'file:///work/b' }] }));
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void logs.push(n.params));
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void listChanged++);
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
    await stopFar?.();
  });

  it('lists the far tools under the prefix beside its own, and calls them', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual([
      'local',
      'far_touchReadme',
      'far_echo',
      'far_progress',
      'far_askName',
      'far_summarize',
      'far_listRoots',
      'far_chatty',
      'far_slow',
      'far_exit',
      'far_lastCancelled',
      'far_enableHidden',
    ]);
    const echo = (await client.listTools()).tools.find((t) => t.name === 'far_echo')!;
    expect(echo).toMatchObject({
      description: 'Echoes text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    expect(textOf(await client.callTool({ name: 'far_echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
    expect(textOf(await client.callTool({ name: 'local', arguments: {} }))).toBe('served here');
  });

  it("passes the far server's validation errors back", async () => {
    const bad = (await client.callTool({ name: 'far_echo', arguments: { text: 42 } })) as Text;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/text/);
  });

  it('forwards progress from the far end', async () => {
    const seen: number[] = [];
    const result = await client.callTool({ name: 'far_progress', arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => void seen.push(p.progress),
    });
    expect(textOf(result)).toBe('did 3 steps');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('answers elicitation, sampling and roots through two hops', async () => {
    expect(textOf(await client.callTool({ name: 'far_askName', arguments: {} }))).toBe('hello Ada');
    expect(elicited).toEqual(['Your name?']);
    expect(textOf(await client.callTool({ name: 'far_summarize', arguments: { text: 'long text' } }))).toBe(
      'summary: short(Summarize: long text) (test-model)',
    );
    expect(textOf(await client.callTool({ name: 'far_listRoots', arguments: {} }))).toBe('file:///work/a,file:///work/b');
  });

  it("forwards the far server's log messages for a call to the caller", async () => {
    await client.setLoggingLevel('debug').catch(() => undefined);
    expect(textOf(await client.callTool({ name: 'far_chatty', arguments: {} }))).toBe('logged');
    await waitFor(() => logs.some((l) => (l as { data?: unknown }).data === 'careful'));
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warning', logger: 'far', data: 'careful' }));
  });

  it('carries cancellation to the far end', async () => {
    const abort = new AbortController();
    const reached = deferred(); // the far server's slow handler reports progress 0 once it runs
    const call = client.callTool({ name: 'far_slow', arguments: {} }, undefined, {
      signal: abort.signal,
      onprogress: () => reached.resolve(),
    });
    await Promise.race([reached.promise, call]); // an answer first fails the test with it
    abort.abort('user gave up');
    await expect(call).rejects.toThrow();
    await waitFor(async () => textOf(await client.callTool({ name: 'far_lastCancelled', arguments: {} })) !== 'null');
    const last = JSON.parse(textOf(await client.callTool({ name: 'far_lastCancelled', arguments: {} }))) as { requestId: unknown };
    expect(last.requestId).toBeDefined();
  });

  it('reads resources and templates, and completes template variables', async () => {
    expect((await client.listResources()).resources).toEqual([
      { uri: 'far://far/readme', name: 'far_readme', title: 'Readme', mimeType: 'text/plain' },
    ]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
      { uriTemplate: 'far://far/items/{name}', name: 'far_item', title: 'Item' },
    ]);
    expect((await client.readResource({ uri: 'far://far/readme' })).contents).toEqual([
      { uri: 'far://far/readme', mimeType: 'text/plain', text: 'far readme' },
    ]);
    expect((await client.readResource({ uri: 'far://far/items/apple' })).contents).toEqual([
      { uri: 'far://far/items/apple', text: 'item apple' },
    ]);
    const done = await client.complete({
      ref: { type: 'ref/resource', uri: 'far://far/items/{name}' },
      argument: { name: 'name', value: 'ap' },
    });
    expect(done.completion.values).toEqual(['apple', 'apricot']);
    await expect(client.readResource({ uri: 'far://readme' })).rejects.toMatchObject({ code: -32002 });
  });

  it('subscribes at the far end when the client subscribes, and passes its updates on under the proxied URI', async () => {
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => void updates.push(n.params.uri));
    expect(textOf(await client.callTool({ name: 'far_touchReadme', arguments: {} }))).toBe('touched, nobody subscribed');
    await client.subscribeResource({ uri: 'far://far/readme' });
    expect(textOf(await client.callTool({ name: 'far_touchReadme', arguments: {} }))).toBe('touched, subscribed');
    await waitFor(() => updates.length === 1);
    expect(updates).toEqual(['far://far/readme']);
  });

  it('gets prompts', async () => {
    expect((await client.listPrompts()).prompts).toEqual([
      { name: 'far_greet', description: 'Greets someone', arguments: [{ name: 'name', required: true }] },
    ]);
    expect((await client.getPrompt({ name: 'far_greet', arguments: { name: 'Bob' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Please greet Bob' } },
    ]);
  });

  it("follows the far server's list changes", async () => {
    const before = listChanged;
    expect(textOf(await client.callTool({ name: 'far_enableHidden', arguments: {} }))).toBe('enabled');
    await waitFor(() => listChanged > before);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('far_hidden');
    expect(textOf(await client.callTool({ name: 'far_hidden', arguments: {} }))).toBe('found me');
  });
});

describe('proxy refusals', () => {
  it('lets go of a proxy unmounted, or an application closed, while it connects: nothing served, the server stopped', async () => {
    const app = await McpApplication.create(GatewayModule);
    const first = stdioClientTransport({ command: process.execPath, args: [SDK_FAR_SERVER, '--stdio'], stderr: 'ignore' });
    const connecting = proxy(app, 'far', first);
    expect(await unmount(app, 'far')).toBe(true);
    await expect(connecting).rejects.toThrow('The proxy at "far" was let go while it connected');
    expect(
      registryOf(app)
        .toolDescriptors()
        .map((t) => t.name),
    ).toEqual(['local']);
    await waitFor(() => first.pid !== undefined && !alive(first.pid));

    const second = stdioClientTransport({ command: process.execPath, args: [SDK_FAR_SERVER, '--stdio'], stderr: 'ignore' });
    const again = proxy(app, 'far', second);
    const closing = app.close();
    await expect(again).rejects.toThrow('was let go while it connected');
    await closing;
    await waitFor(() => second.pid !== undefined && !alive(second.pid));
  });

  it('rejects a name collision and a server that cannot be reached, keeping the application as it was', async () => {
    const app = await McpApplication.create(GatewayModule);
    app.addTool({ name: 'far_echo', handler: () => 'mine' });
    await expect(proxy(app, 'far', farStdio(SDK_FAR_SERVER, 'ignore'))).rejects.toThrow(/Tool name "far_echo" is declared twice/);
    await expect(proxy(app, 'gone', stdioClientTransport({ command: join(ROOT, 'no-such-server'), stderr: 'ignore' }))).rejects.toThrow();
    await expect(
      proxy(app, 'bad prefix', stdioClientTransport({ command: process.execPath, args: [SDK_FAR_SERVER, '--stdio'] })),
    ).rejects.toThrow(/prefix/);
    expect(
      registryOf(app)
        .toolDescriptors()
        .map((t) => t.name),
    ).toEqual(['local', 'far_echo']);
    // The prefix is free again after a failure.
    await proxy(app, 'ok', farStdio(SDK_FAR_SERVER, 'ignore'));
    expect(
      registryOf(app)
        .toolDescriptors()
        .map((t) => t.name),
    ).toContain('ok_echo');
    expect(await unmount(app, 'ok')).toBe(true);
    expect(
      registryOf(app)
        .toolDescriptors()
        .map((t) => t.name),
    ).toEqual(['local', 'far_echo']);
    await app.close();
  });
});

describe('a proxied server that goes away', () => {
  const quietFar = () => farStdio(SDK_FAR_SERVER, 'ignore');

  async function start(transport: ProxyTransport) {
    const errors: string[] = [];
    const app = await McpApplication.create(GatewayModule, {
      logger: { error: (m) => void errors.push(m), warn: () => undefined, info: () => undefined },
    });
    await proxy(app, 'far', transport);
    const client = new Client({ name: 'sdk-client', version: '1.0.0' });
    let listChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void listChanged++);
    await client.connect(app.connectInMemory());
    const names = async () => (await client.listTools()).tools.map((t) => t.name);
    return { app, client, errors, names, changes: () => listChanged };
  }

  it('withdraws its primitives (clients hear list_changed) and keeps serving the rest', async () => {
    const { app, client, errors, names, changes } = await start(quietFar());
    expect(await names()).toContain('far_echo');
    const before = changes();
    expect(textOf(await client.callTool({ name: 'far_exit', arguments: {} }))).toBe('bye');
    await waitFor(() => changes() > before);
    await waitFor(async () => (await names()).length === 1);
    expect(await names()).toEqual(['local']);
    await expect(client.callTool({ name: 'far_echo', arguments: { text: 'x' } })).rejects.toMatchObject({ code: -32602 });
    expect(textOf(await client.callTool({ name: 'local', arguments: {} }))).toBe('served here');
    expect(errors).toEqual(['The server proxied at "far" disconnected; its tools, resources and prompts are withdrawn']);
    // The prefix stays taken until it is let go.
    await expect(proxy(app, 'far', quietFar())).rejects.toThrow(/already mounted/);
    expect(await unmount(app, 'far')).toBe(true);
    await app.close();
  });

  it('given a function that makes transports, connects again and serves it again', async () => {
    let made = 0;
    const { app, client, errors, names } = await start(() => (made++, quietFar()));
    expect(textOf(await client.callTool({ name: 'far_exit', arguments: {} }))).toBe('bye');
    await waitFor(async () => !(await names()).includes('far_echo'));
    await waitFor(async () => (await names()).includes('far_echo'), { timeoutMs: 10_000 });
    expect(made).toBe(2);
    expect(textOf(await client.callTool({ name: 'far_echo', arguments: { text: 'again' } }))).toBe('echo: again');
    expect(errors).toEqual([
      'The server proxied at "far" disconnected; its tools, resources and prompts are withdrawn until it is reconnected',
    ]);
    await app.close();
  });

  it('logs a transport function that throws, and tries again: the process keeps serving', async () => {
    let made = 0;
    const { app, client, errors, names } = await start(() => {
      // The second transport fails to be made (a bad address, say): only the attempt fails.
      if (++made === 2) throw new TypeError('Invalid URL');
      return quietFar();
    });
    expect(textOf(await client.callTool({ name: 'far_exit', arguments: {} }))).toBe('bye');
    await waitFor(async () => (await names()).includes('far_echo') && made === 3, { timeoutMs: 10_000 });
    expect(textOf(await client.callTool({ name: 'far_echo', arguments: { text: 'again' } }))).toBe('echo: again');
    expect(errors).toEqual([
      'The server proxied at "far" disconnected; its tools, resources and prompts are withdrawn until it is reconnected',
      expect.stringMatching(/^Could not reconnect the server proxied at "far" \(next attempt in [\d.]+ s\)$/),
    ]);
    await app.close();
  });

  it('rejects a call in flight when the remote server dies, with the connection error', async () => {
    const { app, client } = await start(quietFar());
    const reached = deferred(); // the far server's slow handler reports progress 0 once it runs
    const slow = client.callTool({ name: 'far_slow', arguments: {} }, undefined, { onprogress: () => reached.resolve() });
    await Promise.race([reached.promise, slow]); // an answer first fails the test with it
    await client.callTool({ name: 'far_exit', arguments: {} });
    await expect(slow).rejects.toMatchObject({ code: -32000 });
    await app.close();
  });
});
