import { useAsyncContextManager } from '../helpers/otel-context';
import { BasicTracerProvider, InMemorySpanExporter, ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpContext, McpModule, Tool } from '../../src';
import { redisScaleOut } from '../../src/redis';
import { ACCEPT_BOTH } from '../helpers/http-app';
import { PrivateRedis } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait-for';
import { httpServer } from '../../src/http';

@injectable()
class PingTools {
  @Tool({ taskSupport: 'optional' }) ping(_: EmptyInput) {
    return 'pong';
  }
  @Tool() async ask(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicit({ message: 'Sure?', requestedSchema: { type: 'object', properties: {} } });
    return answer.action;
  }
}

@McpModule({ providers: [PingTools], server: { name: 'traced-redis', version: '1.0.0' } })
class PingModule {}

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
const TRACE_ID = '5b8aa5a2d2c872e8321cf37308d69df2';
const PARENT_ID = '051581bf3cb55c13';

/** Two instances sharing a private Redis; the second one traces, with a context manager as an SDK registers. */
describe('telemetry: Redis calls of a scaled-out server are child spans', () => {
  let redis: PrivateRedis;
  const apps: McpApplication[] = [];
  let stopContext: () => void;
  beforeAll(async () => {
    redis = await PrivateRedis.start();
    stopContext = useAsyncContextManager();
  });
  afterAll(async () => {
    stopContext();
    for (const app of apps.splice(0)) await app.close();
    await redis.stop();
  });

  const instance = async (telemetry: object) => {
    const app = await McpApplication.create(PingModule, {
      logger: quiet,
      telemetry,
      scaleOut: redisScaleOut({ redis: redis.url, keyPrefix: 'otel:' }),
    });
    apps.push(app);
    const http = await app.listen(httpServer({ port: 0, host: '127.0.0.1', responseMode: 'json' }));
    return (body: object, headers: Record<string, string> = {}) =>
      fetch(http.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
        body: JSON.stringify(body),
      });
  };

  it('a request for a session made on another instance: the session is loaded from Redis, and its change is written under the server span', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const first = await instance({ mode: 'off' });
    const second = await instance({ mode: 'full', tracerProvider });
    const init = await first({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect(init.status).toBe(200);
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await first({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    expect(exporter.getFinishedSpans()).toEqual([]);

    const set = await second(
      { jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'debug' } },
      { ...headers, traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    );
    expect(await set.json()).toMatchObject({ id: 2, result: {} });
    const spans = () => exporter.getFinishedSpans();
    const named = (name: string): ReadableSpan | undefined => spans().find((s) => s.name === name);
    const server = named('logging/setLevel')!;
    expect(server.parentSpanContext?.spanId).toBe(PARENT_ID);
    // The replica of the session came from Redis (GET).
    expect(named('session_backplane load')?.attributes).toMatchObject({
      'db.system.name': 'redis',
      'db.operation.name': 'GET',
      'mcpkit.session_backplane.operation': 'load',
    });
    // The level change is shared with the other instances through Redis, in the request's trace.
    // (The instance also refreshes the session's expiry when it first serves it: an update outside any request.)
    const underServer = (name: string) =>
      spans().find((s) => s.name === name && s.parentSpanContext?.spanId === server.spanContext().spanId);
    const update = await waitFor(() => underServer('session_backplane update'));
    expect(update.attributes).toMatchObject({
      'db.system.name': 'redis',
      'db.operation.name': 'EVALSHA',
      'mcpkit.session_backplane.operation': 'update',
    });
    expect(update.spanContext().traceId).toBe(TRACE_ID);
    const publish = await waitFor(() => underServer('session_backplane publish'));
    expect(publish.attributes).toMatchObject({ 'db.system.name': 'redis', 'db.operation.name': 'PUBLISH' });
    expect(publish.spanContext().traceId).toBe(TRACE_ID);
  });

  it('Redis task store calls carry db.system.name', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const post = await instance({ mode: 'full', tracerProvider });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tasks/list', params: {} }, headers);
    expect(await list.json()).toMatchObject({ result: { tasks: [] } });
    const span = exporter.getFinishedSpans().find((s) => s.name === 'task_store list')!;
    expect(span.attributes).toMatchObject({ 'db.system.name': 'redis', 'mcpkit.task_store.operation': 'list' });
    expect(span.parentSpanContext?.spanId).toBe(
      exporter
        .getFinishedSpans()
        .find((s) => s.name === 'tasks/list')!
        .spanContext().spanId,
    );
  });

  it('the channels between instances (resource updates, the shared requestState key) get Redis spans too', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const app = await McpApplication.create(PingModule, {
      logger: quiet,
      telemetry: { mode: 'full', tracerProvider },
      scaleOut: redisScaleOut({ redis: redis.url, keyPrefix: 'otel2:' }),
    });
    apps.push(app);
    await app.notifyResourceUpdated('test://changed');
    const publish = await waitFor(() => exporter.getFinishedSpans().find((s) => s.name === 'session_backplane publish'));
    expect(publish.attributes).toMatchObject({
      'db.system.name': 'redis',
      'db.operation.name': 'PUBLISH',
      'mcpkit.session_backplane.operation': 'publish',
    });
    // A 2026-07-28 request that needs input seals its requestState with the deployment's key, read from Redis.
    const http = await app.listen(httpServer({ port: 0, host: '127.0.0.1', responseMode: 'json' }));
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const res = await fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT_BOTH,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'ask',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ask', arguments: {}, _meta: { ...envelope, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } },
      }),
    });
    expect(await res.json()).toMatchObject({ result: { resultType: 'input_required' } });
    const secret = await waitFor(() => exporter.getFinishedSpans().find((s) => s.name === 'session_backplane sharedSecret'));
    expect(secret.attributes).toMatchObject({ 'db.system.name': 'redis', 'mcpkit.session_backplane.operation': 'sharedSecret' });
  });
});
