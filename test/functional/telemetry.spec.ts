import { PassThrough } from 'node:stream';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { useAsyncContextManager } from '../helpers/otel-context';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IsString, MaxLength } from 'class-validator';
import { injectable } from 'tsyringe';
import { BasicTracerProvider, InMemorySpanExporter, ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { EmptyInput, McpApplication, McpContext, McpError, McpModule, Tool } from '../../src';
import { InMemoryEventStore } from '../../src/stores';
import type { TelemetryOptions } from '../../src';
import { ACCEPT_BOTH } from '../helpers/http-app';
import { waitFor } from '../helpers/wait-for';
import { httpServer, httpTransport } from '../../src/http';
import { stdio } from '../../src/stdio';

class EchoInput {
  @IsString() @MaxLength(10) text!: string;
}

let release!: () => void;
let held = new Promise<void>((resolve) => (release = resolve));
beforeEach(() => {
  held = new Promise<void>((resolve) => (release = resolve));
});

@injectable()
class TracedTools {
  @Tool() echo(input: EchoInput) {
    return input.text;
  }
  @Tool({ taskSupport: 'optional' }) fails(_: EmptyInput) {
    throw new McpError(-32042, 'refused');
  }
  @Tool({ taskSupport: 'optional' }) work(_: EmptyInput) {
    return 'worked';
  }
  @Tool({ taskSupport: 'optional' }) async held(_: EmptyInput) {
    await held;
    return 'released';
  }
  @Tool() async asks(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return answer.action;
  }
}

@McpModule({ providers: [TracedTools], server: { name: 'traced', version: '1.0.0' } })
class TracedModule {}

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';

function observability(mode: TelemetryOptions['mode'], spans?: TelemetryOptions['spans']) {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const metrics = async () => {
    const { resourceMetrics } = await reader.collect();
    return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
  };
  return { telemetry: { mode, tracerProvider, meterProvider, spans }, exporter, metrics, tracerProvider };
}

/** A stdio connection over in-process pipes: one JSON-RPC message a line, as a stdio client writes them. */
async function stdioClient(app: McpApplication, initialize = true) {
  const input = new PassThrough();
  const output = new PassThrough();
  const messages: Record<string, unknown>[] = [];
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      messages.push(JSON.parse(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
    }
  });
  await app.listen(stdio({ input, output, redirectConsole: false }));
  const send = (message: object) => input.write(`${JSON.stringify(message)}\n`);
  const answer = async (id: number | string) => waitFor(() => messages.find((m) => m.id === id && ('result' in m || 'error' in m)));
  if (!initialize) return { send, answer, messages };
  send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 't', version: '1' } },
  });
  await answer(0);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { send, answer, messages };
}

const byName = (exporter: InMemorySpanExporter, name: string): ReadableSpan => {
  const span = exporter.getFinishedSpans().find((s) => s.name === name);
  if (!span)
    throw new Error(
      `no span ${name} among ${exporter
        .getFinishedSpans()
        .map((s) => s.name)
        .join(', ')}`,
    );
  return span;
};

describe('telemetry', () => {
  const apps: McpApplication[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });
  const create = async (telemetry: TelemetryOptions) => {
    const app = await McpApplication.create(TracedModule, { logger: quiet, telemetry });
    apps.push(app);
    return app;
  };

  it('stdio: a tools/call has a server span named and attributed by the MCP conventions, child of the _meta traceparent', async () => {
    const o = observability('full', { validation: true });
    const { send, answer } = await stdioClient(await create(o.telemetry));
    send({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' }, _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: 'k=v' } },
    });
    expect(await answer(7)).toMatchObject({ result: { content: [{ type: 'text', text: 'hi' }] } });
    const span = byName(o.exporter, 'tools/call echo');
    expect(span.kind).toBe(1); // SpanKind.SERVER
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '7',
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'pipe',
    });
    expect(span.attributes['error.type']).toBeUndefined();
    const validation = byName(o.exporter, 'validate_arguments echo');
    expect(validation.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    expect(validation.spanContext().traceId).toBe(TRACE_ID);
    expect(validation.attributes['error.type']).toBeUndefined();
    expect(byName(o.exporter, 'initialize').attributes['mcp.method.name']).toBe('initialize');
  });

  it('HTTP: the traceparent header becomes the parent, the session id is recorded, and duration metrics are kept', async () => {
    const o = observability('full');
    const app = await create(o.telemetry);
    const http = await app.listen(httpServer({ port: 0, host: '127.0.0.1', responseMode: 'json' }));
    const post = (body: object, headers: Record<string, string> = {}) =>
      fetch(http.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const session = init.headers.get('mcp-session-id')!;
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    const call = await post(
      { jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'echo', arguments: { text: 'over http' } } },
      { ...headers, traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    );
    expect(await call.json()).toMatchObject({ result: { content: [{ text: 'over http' }] } });
    const span = byName(o.exporter, 'tools/call echo');
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span.attributes).toMatchObject({
      'mcp.session.id': session,
      'jsonrpc.request.id': 'c1',
      'network.transport': 'tcp',
      'gen_ai.tool.name': 'echo',
    });
    // The HTTP connection, as the conventions recommend: protocol and version, the client's address and port.
    expect(span.attributes).toMatchObject({
      'network.protocol.name': 'http',
      'network.protocol.version': '1.1',
      'client.address': expect.stringMatching(/127\.0\.0\.1$/),
      'client.port': expect.any(Number),
    });
    const metrics = await o.metrics();
    const duration = metrics.find((m) => m.descriptor.name === 'mcp.server.operation.duration')!;
    expect(duration.descriptor.unit).toBe('s');
    expect(duration.dataPoints.map((p) => p.attributes)).toContainEqual(
      expect.objectContaining({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo' }),
    );
    const active = metrics.find((m) => m.descriptor.name === 'mcpkit.server.session.active')!;
    expect(active.dataPoints.map((p) => p.value)).toEqual([1]);
    await fetch(http.url, { method: 'DELETE', headers });
    const after = await o.metrics();
    expect(after.find((m) => m.descriptor.name === 'mcp.server.session.duration')?.dataPoints.length).toBe(1);
    expect(after.find((m) => m.descriptor.name === 'mcpkit.server.session.active')!.dataPoints.map((p) => p.value)).toEqual([0]);
  });

  it("HTTP: a recording span carries the client's address", async () => {
    const o = observability('full');
    const http = await (await create(o.telemetry)).listen(httpServer({ port: 0, host: '127.0.0.1', sessions: false }));
    const answer = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'peer' } } }),
    });
    expect(await answer.json()).toMatchObject({ result: { content: [{ text: 'peer' }] } });
    expect(byName(o.exporter, 'tools/call echo').attributes['client.address']).toMatch(/127\.0\.0\.1$/);
  });

  it('an error sets error.type and the JSON-RPC code, and is counted by code', async () => {
    const o = observability('full');
    const { send, answer } = await stdioClient(await create(o.telemetry));
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fails', arguments: {} } });
    expect(await answer(2)).toMatchObject({ error: { code: -32042 } });
    send({ jsonrpc: '2.0', id: 3, method: 'no/such/method' });
    expect(await answer(3)).toMatchObject({ error: { code: -32601 } });
    const failed = byName(o.exporter, 'tools/call fails');
    expect(failed.attributes).toMatchObject({ 'error.type': '-32042', 'rpc.response.status_code': '-32042' });
    expect(failed.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(failed.status.message).toBe('refused'); // the JSON-RPC error's message
    expect(byName(o.exporter, 'no/such/method').attributes['error.type']).toBe('-32601');
    const errors = (await o.metrics()).find((m) => m.descriptor.name === 'mcpkit.server.errors')!;
    expect(errors.dataPoints.map((p) => [p.attributes['rpc.response.status_code'], p.value]).sort()).toEqual([
      ['-32042', 1],
      ['-32601', 1],
    ]);
  });

  it('invalid tool arguments: the validation child span and the tools/call span carry the error type', async () => {
    const o = observability('full', { validation: true });
    const { send, answer } = await stdioClient(await create(o.telemetry));
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text: 'far too long for it' } } });
    expect(await answer(4)).toMatchObject({ result: { isError: true } });
    const span = byName(o.exporter, 'tools/call echo');
    expect(span.attributes['error.type']).toBe('tool_error');
    const validation = byName(o.exporter, 'validate_arguments echo');
    expect(validation.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    expect(validation.attributes['error.type']).toBe('invalid_arguments');
  });

  it('a tool registered at runtime (JSON Schema) gets the validation child span too', async () => {
    const o = observability('full', { validation: true });
    const app = await create(o.telemetry);
    app.addTool({
      name: 'schemed',
      inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      handler: (args) => `n=${String(args.n)}`,
    });
    const { send, answer } = await stdioClient(app);
    send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'schemed', arguments: { n: 'x' } } });
    expect(await answer(5)).toMatchObject({ result: { isError: true } });
    const span = byName(o.exporter, 'tools/call schemed');
    const validation = byName(o.exporter, 'validate_arguments schemed');
    expect(validation.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    expect(validation.attributes).toMatchObject({ 'gen_ai.tool.name': 'schemed', 'error.type': 'invalid_arguments' });
  });

  for (const mode of ['full', 'propagation'] as const) {
    it(`${mode}: a request sent to the client carries the trace context in _meta`, async () => {
      const o = observability(mode);
      const { send, answer, messages } = await stdioClient(await create(o.telemetry));
      send({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'asks', arguments: {}, _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, baggage: 'user=ann' } },
      });
      const elicit = await waitFor(() => messages.find((m) => m.method === 'elicitation/create'));
      send({ jsonrpc: '2.0', id: elicit.id, result: { action: 'decline' } });
      expect(await answer(5)).toMatchObject({ result: { content: [{ text: 'decline' }] } });
      const meta = (elicit.params as { _meta: Record<string, string> })._meta;
      expect(meta.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
      expect(meta.baggage).toBe('user=ann');
      if (mode === 'full') expect(meta.traceparent.split('-')[2]).toBe(byName(o.exporter, 'tools/call asks').spanContext().spanId);
      else expect(meta.traceparent).toBe(`00-${TRACE_ID}-${PARENT_ID}-01`);
    });
  }

  it('counts open subscriptions/listen streams', async () => {
    const o = observability('full');
    const { send, messages } = await stdioClient(await create(o.telemetry), false);
    const listening = async () =>
      (await o.metrics()).find((m) => m.descriptor.name === 'mcpkit.server.listen.active')!.dataPoints.map((p) => p.value);
    expect(await listening()).toEqual([0]);
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    send({
      jsonrpc: '2.0',
      id: 'l1',
      method: 'subscriptions/listen',
      params: { _meta: envelope, notifications: { toolsListChanged: true } },
    });
    await waitFor(() => messages.find((m) => m.method === 'notifications/subscriptions/acknowledged'));
    expect(await listening()).toEqual([1]);
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'l1' } });
    await waitFor(async () => (await listening())[0] === 0);
  });

  it('with a context manager (as an SDK registers), task store calls are child spans of the request', async () => {
    const stopContext = useAsyncContextManager();
    try {
      const o = observability('full');
      const { send, answer } = await stdioClient(await create(o.telemetry));
      send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'work', arguments: {}, task: {} } });
      expect(await answer(9)).toMatchObject({ result: { task: { taskId: expect.any(String) } } });
      const call = byName(o.exporter, 'tools/call work');
      const created = byName(o.exporter, 'task_store create');
      expect(created.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
      expect(created.attributes['mcpkit.task_store.operation']).toBe('create');
    } finally {
      stopContext();
    }
  });

  it('links the ambient context (an HTTP span of another instrumentation) while _meta stays the parent', async () => {
    const stopContext = useAsyncContextManager();
    const server = createServer();
    try {
      const o = observability('full');
      const app = await create(o.telemetry);
      const listener = httpTransport(app, { sessions: false, responseMode: 'json' }).callback();
      // What an HTTP instrumentation does: a server span around the request, active while it is handled.
      const httpTracer = o.tracerProvider.getTracer('http-instrumentation');
      server.on('request', (req, res) => {
        const span = httpTracer.startSpan('POST /mcp');
        res.on('finish', () => span.end());
        // Koa's handler settles every request itself (errors go to ctx.onerror): its promise never rejects.
        context.with(trace.setSpan(ROOT_CONTEXT, span), () => void listener(req, res));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'l1',
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: 'x' }, _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } },
        }),
      });
      expect(res.status).toBe(200);
      const call = await waitFor(() => o.exporter.getFinishedSpans().find((s) => s.name === 'tools/call echo'));
      const http = await waitFor(() => o.exporter.getFinishedSpans().find((s) => s.name === 'POST /mcp'));
      expect(call.parentSpanContext?.spanId).toBe(PARENT_ID);
      expect(call.links.map((l) => l.context.spanId)).toEqual([http.spanContext().spanId]);
      await app.close();
    } finally {
      server.close();
      stopContext();
    }
  });

  it('mcpkit.server.tasks counts the tasks in each status now, and forgets a task once its ttl has run out', async () => {
    const o = observability('full');
    const { send, answer } = await stdioClient(await create(o.telemetry));
    const tasks = async () => {
      const metric = (await o.metrics()).find((m) => m.descriptor.name === 'mcpkit.server.tasks')!;
      return Object.fromEntries(metric.dataPoints.map((p) => [p.attributes['mcpkit.task.status'], p.value]));
    };
    const none = { working: 0, input_required: 0, completed: 0, failed: 0, cancelled: 0 };
    expect(await tasks()).toEqual(none);
    send({ jsonrpc: '2.0', id: 'h1', method: 'tools/call', params: { name: 'held', arguments: {}, task: { ttl: 60_000 } } });
    expect(await answer('h1')).toMatchObject({ result: { task: { status: 'working' } } });
    expect(await tasks()).toEqual({ ...none, working: 1 });
    send({ jsonrpc: '2.0', id: 'f1', method: 'tools/call', params: { name: 'fails', arguments: {}, task: { ttl: 60_000 } } });
    await answer('f1');
    await waitFor(async () => (await tasks()).failed === 1);
    expect(await tasks()).toEqual({ ...none, working: 1, failed: 1 });
    release();
    await waitFor(async () => (await tasks()).completed === 1);
    expect(await tasks()).toEqual({ ...none, completed: 1, failed: 1 });
    // A short ttl: once it has passed, the store may delete the task and the gauge no longer counts it.
    send({ jsonrpc: '2.0', id: 'w1', method: 'tools/call', params: { name: 'work', arguments: {}, task: { ttl: 200 } } });
    await answer('w1');
    await waitFor(async () => (await tasks()).completed === 2);
    await waitFor(async () => (await tasks()).completed === 1);
    expect(await tasks()).toEqual({ ...none, completed: 1, failed: 1 });
  });

  it('a 2026-07-28 request records the protocol version of its envelope', async () => {
    const o = observability('full');
    const { send, answer } = await stdioClient(await create(o.telemetry), false);
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    send({
      jsonrpc: '2.0',
      id: 'm1',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'modern' }, _meta: { ...envelope, traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } },
    });
    expect(await answer('m1')).toMatchObject({ result: { content: [{ text: 'modern' }] } });
    const span = byName(o.exporter, 'tools/call echo');
    expect(span.attributes['mcp.protocol.version']).toBe('2026-07-28');
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
  });

  for (const store of ['configured', 'default in-memory'] as const) {
    it(`the ${store} event store has a span per call`, async () => {
      const o = observability('full');
      const app = await create(o.telemetry);
      const http = await app.listen(
        httpServer({
          port: 0,
          host: '127.0.0.1',
          responseMode: 'sse',
          ...(store === 'configured' ? { eventStore: new InMemoryEventStore() } : {}),
        }),
      );
      const post = (body: object, headers: Record<string, string> = {}) =>
        fetch(http.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
          body: JSON.stringify(body),
        });
      const init = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      await init.text();
      const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
      const call = await post(
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'stored' } } },
        headers,
      );
      expect(await call.text()).toContain('stored');
      const stored = o.exporter.getFinishedSpans().filter((s) => s.name.startsWith('event_store '));
      expect(stored.length).toBeGreaterThan(0);
      expect(stored[0].attributes['mcpkit.event_store.operation']).toMatch(/^store(Event|Serialized)$/);
    });
  }

  it('propagation only emits no spans and records no metrics', async () => {
    const o = observability('propagation');
    const { send, answer } = await stdioClient(await create(o.telemetry));
    send({
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' }, _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } },
    });
    await answer(6);
    expect(o.exporter.getFinishedSpans()).toEqual([]);
    expect(await o.metrics()).toEqual([]);
  });

  it('off emits nothing and leaves requests to the client untouched', async () => {
    const o = observability('off');
    const { send, answer, messages } = await stdioClient(await create(o.telemetry));
    send({
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'asks', arguments: {}, _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } },
    });
    const elicit = await waitFor(() => messages.find((m) => m.method === 'elicitation/create'));
    send({ jsonrpc: '2.0', id: elicit.id, result: { action: 'cancel' } });
    await answer(8);
    expect((elicit.params as Record<string, unknown>)._meta).toBeUndefined();
    expect(o.exporter.getFinishedSpans()).toEqual([]);
  });
});
