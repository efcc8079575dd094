import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import request from 'supertest';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpContext, McpModule, Tool, type TelemetryOptions } from '../../src';
import { ACCEPT_BOTH } from '../helpers/http-app';
import { perRequestBody, perRequestHeaders } from '../helpers/per-request-http';
import { httpTransport } from '../../src/http';
import type { RequestListener } from '../../src/http';

@injectable()
class SyncTools {
  @Tool({ description: 'Answers at once' })
  quick(_: EmptyInput) {
    return 'quick';
  }

  @Tool({ description: 'Throws synchronously' })
  broken(_: EmptyInput): string {
    throw new Error('broken inside');
  }

  @Tool({ description: 'Reports progress, then answers' })
  async stepping(_: EmptyInput, ctx: McpContext) {
    await ctx.progress(1, 2);
    return 'stepped';
  }
}

@McpModule({ providers: [SyncTools], server: { name: 'sync-traced', version: '1.0.0' } })
class SyncTracedModule {}

const HANDSHAKE = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2025-11-25' };
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {}, _meta: { traceparent: TRACEPARENT } },
});

/*
 * With tracing on, a tool that sends nothing before its result is answered as plain JSON, as it is with
 * telemetry off, its server span ended; one that reports progress streams, and is traced to its end.
 */
describe.each([
  ['full, with no OpenTelemetry SDK', false],
  ['full, with an SDK tracer provider', true],
])('telemetry %s: a synchronous handler over stateless HTTP', (_label, withSdk) => {
  let app: McpApplication;
  let exporter: InMemorySpanExporter;
  let callback: RequestListener;

  beforeEach(async () => {
    exporter = new InMemorySpanExporter();
    const telemetry: TelemetryOptions = { mode: 'full' };
    if (withSdk) telemetry.tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    app = await McpApplication.create(SyncTracedModule, {
      logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
      telemetry,
    });
    callback = httpTransport(app, { sessions: false }).callback();
  });
  afterEach(async () => {
    trace.disable();
    await app.close();
  });

  const post = (body: unknown, headers: Record<string, string>) => request(callback).post('/mcp').set(headers).send(JSON.stringify(body));

  it('is answered as plain JSON in both eras, its span ended', async () => {
    const legacy = await post(call(1, 'quick'), HANDSHAKE);
    expect(legacy.headers['content-type']).toMatch(/application\/json/);
    expect(legacy.body.result.content).toEqual([{ type: 'text', text: 'quick' }]);
    const perRequestCall = perRequestBody('tools/call', { name: 'quick', arguments: {} }, 2);
    const modern = await post(perRequestCall, perRequestHeaders(perRequestCall));
    expect(modern.body.result.content).toEqual([{ type: 'text', text: 'quick' }]);
    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'tools/call quick');
    expect(spans).toHaveLength(withSdk ? 2 : 0);
    if (withSdk) {
      expect(spans[0].parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      expect(spans.map((s) => s.attributes['mcp.protocol.version'])).toEqual(['2025-11-25', '2026-07-28']);
    }
  });

  it('a synchronous throw is the call’s error result, and its span says so', async () => {
    const broken = await post(call(3, 'broken'), HANDSHAKE);
    expect(broken.status).toBe(200);
    expect(broken.body.result.isError).toBe(true);
    const span = exporter.getFinishedSpans().find((s) => s.name === 'tools/call broken');
    if (withSdk) expect(span?.attributes['error.type']).toBe('tool_error');
    else expect(span).toBeUndefined();
  });

  it('an asynchronous handler still streams, and its span ends once it has answered', async () => {
    const stepping = {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'stepping', arguments: {}, _meta: { traceparent: TRACEPARENT, progressToken: 'p' } },
    };
    const sse = await post(stepping, HANDSHAKE);
    expect(sse.headers['content-type']).toBe('text/event-stream');
    expect(sse.text).toContain('stepped');
    expect(exporter.getFinishedSpans().filter((s) => s.name === 'tools/call stepping')).toHaveLength(withSdk ? 1 : 0);
  });
});
