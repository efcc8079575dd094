import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpContext, McpModule, Prompt, Resource, Tool } from '../../../src';
import type { HttpOptions } from '../../../src/http';
import { SseReader } from '../../helpers/sse-client';
import { deferred, waitFor } from '../../helpers/wait-for';
import { httpServer } from '../../../src/http';

class StepsInput {
  @IsInt() @Min(1) @Max(10) steps!: number;
}

class GreetArgs {
  @IsString() who!: string;
}

@injectable()
class Sse2024Tools {
  @Tool({ description: 'Reports progress, then answers' })
  async count(input: StepsInput, ctx: McpContext) {
    for (let i = 1; i <= input.steps; i++) await ctx.progress(i, input.steps);
    return `counted ${input.steps}`;
  }

  /** Resolved by the test once its client saw the progress (the SDK drops progress that arrives with the result). */
  readonly progressSeen = deferred();

  @Tool({ description: 'Reports progress, then answers once the client saw it' })
  async countSeen(input: StepsInput, ctx: McpContext) {
    for (let i = 1; i <= input.steps; i++) await ctx.progress(i, input.steps);
    await this.progressSeen.promise;
    return `counted ${input.steps}`;
  }

  @Tool({ description: 'Asks the user for a name' })
  async askName(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return answer.action === 'accept' ? `hello ${String(answer.content?.name)}` : answer.action;
  }

  @Resource({ uri: 'legacy://greeting', mimeType: 'text/plain' })
  greeting() {
    return 'hi there';
  }

  @Prompt({ description: 'Greets' })
  greet(args: GreetArgs) {
    return `Hello ${args.who}`;
  }
}

@McpModule({ providers: [Sse2024Tools], server: { name: 'legacy-test', version: '1.0.0' } })
class Sse2024Module {}

/** The 2024-11-05 HTTP+SSE transport beside the Streamable HTTP endpoint, on a loopback socket (port 0). */
describe('HTTP+SSE (2024-11-05) transport', () => {
  const apps: McpApplication[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });

  async function start(options: HttpOptions = {}) {
    const app = await McpApplication.create(Sse2024Module, {
      logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
    });
    apps.push(app);
    const http = await app.listen(httpServer({ port: 0, keepAliveMs: 0, ...options }));
    const url = http.url;
    const base = new URL(url).origin;
    return { app, url, base };
  }

  async function openRaw(base: string) {
    const stream = await SseReader.open(`${base}/sse`, { headers: { accept: 'text/event-stream' } });
    await stream.waitFor((r) => r.events.length >= 1);
    const endpoint = stream.events[0];
    const post = (body: unknown) =>
      fetch(new URL(endpoint.data, base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { stream, endpoint, post };
  }

  it('serves the SDK SSEClientTransport: initialize, tools with progress, elicitation, resources and prompts', async () => {
    const { base, app } = await start();
    const client = new Client({ name: 'old-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    clients.push(client);
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
    await client.connect(new SSEClientTransport(new URL(`${base}/sse`)));
    expect(client.getServerVersion()).toMatchObject({ name: 'legacy-test' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {} });

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['askName', 'count', 'countSeen']);

    const progress: number[] = [];
    const onprogress = (p: { progress: number }) => {
      progress.push(p.progress);
      if (progress.length === 3) app.get(Sse2024Tools).progressSeen.resolve();
    };
    const counted = await client.callTool({ name: 'countSeen', arguments: { steps: 3 } }, undefined, { onprogress });
    expect(counted.content).toEqual([{ type: 'text', text: 'counted 3' }]);
    expect(progress).toEqual([1, 2, 3]);

    const asked = await client.callTool({ name: 'askName', arguments: {} });
    expect(asked.content).toEqual([{ type: 'text', text: 'hello Ada' }]);

    const read = await client.readResource({ uri: 'legacy://greeting' });
    expect(read.contents).toEqual([{ uri: 'legacy://greeting', mimeType: 'text/plain', text: 'hi there' }]);

    const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'Bob' } });
    expect(prompt.messages[0].content).toEqual({ type: 'text', text: 'Hello Bob' });
  });

  it('negotiates the 2024-11-05 protocol version when the client asks for it', async () => {
    const { base } = await start();
    const { stream, post } = await openRaw(base);
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    });
    expect(init.status).toBe(202);
    await stream.waitFor((r) => r.events.length >= 2);
    expect(stream.events[1].event).toBe('message');
    expect(JSON.parse(stream.events[1].data)).toMatchObject({
      id: 1,
      result: { protocolVersion: '2024-11-05', serverInfo: { name: 'legacy-test' } },
    });
    await stream.disconnect();
  });

  it('starts the stream with an endpoint event naming the messages URL and a session id', async () => {
    const { base } = await start();
    const { stream, endpoint } = await openRaw(base);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream');
    expect(endpoint.event).toBe('endpoint');
    expect(endpoint.data).toMatch(/^\/messages\?sessionId=[0-9a-f]{32}$/);
    await stream.disconnect();
  });

  it('answers a POST for an unknown session 404, and one without a session 400, with JSON-RPC errors', async () => {
    const { base } = await start();
    const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const unknown = await fetch(`${base}/messages?sessionId=nope`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: message,
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
    const missing = await fetch(`${base}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: message });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('refuses a foreign Origin with 403 like the MCP endpoint', async () => {
    const { base } = await start();
    const res = await fetch(`${base}/sse`, { headers: { accept: 'text/event-stream', origin: 'http://evil.example' } });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: -32000 } });
  });

  it('is off with sse2024: false', async () => {
    const { base } = await start({ sse2024: false });
    const res = await fetch(`${base}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(404);
  });

  it('serves custom paths', async () => {
    const { base } = await start({ sse2024: { path: '/old/events', messagesPath: '/old/post' } });
    const stream = await SseReader.open(`${base}/old/events`, { headers: { accept: 'text/event-stream' } });
    await stream.waitFor((r) => r.events.length >= 1);
    expect(stream.events[0].data).toMatch(/^\/old\/post\?sessionId=/);
    await stream.disconnect();
  });

  it('ends the session when the stream closes: a later POST gets 404', async () => {
    const { base } = await start();
    const { stream, post } = await openRaw(base);
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    });
    expect(init.status).toBe(202);
    await stream.disconnect();
    await waitFor(async () => (await post({ jsonrpc: '2.0', id: 2, method: 'ping' })).status === 404, {
      what: 'a POST to the ended session to get 404',
      intervalMs: 50,
    });
  });

  it('ends its streams on shutdown', async () => {
    const { base, app } = await start();
    const { stream } = await openRaw(base);
    await app.close();
    await stream.finished();
    expect(stream.ended).toBe(true);
  });

  it('keeps the Streamable HTTP endpoint working beside it', async () => {
    const { url, base } = await start();
    const legacy = new Client({ name: 'old', version: '1' });
    const modern = new Client({ name: 'new', version: '1' });
    clients.push(legacy, modern);
    await legacy.connect(new SSEClientTransport(new URL(`${base}/sse`)));
    await modern.connect(new StreamableHTTPClientTransport(new URL(url)));
    const [a, b] = await Promise.all([
      legacy.callTool({ name: 'count', arguments: { steps: 1 } }),
      modern.callTool({ name: 'count', arguments: { steps: 2 } }),
    ]);
    expect(a.content).toEqual([{ type: 'text', text: 'counted 1' }]);
    expect(b.content).toEqual([{ type: 'text', text: 'counted 2' }]);
  });
});
