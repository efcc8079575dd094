import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpContext, McpModule, Tool, type TelemetryOptions } from '../../src';
import { McpTestClient } from '../../src/testing';
import * as traceContext from '../../src/observability/trace-context';

class EchoInput {
  @IsString() text!: string;
}

@injectable()
class Tools {
  @Tool() echo(input: EchoInput) {
    return input.text;
  }
  @Tool() async asks(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return answer.action;
  }
}

@McpModule({ providers: [Tools], server: { name: 'no-sdk', version: '1.0.0' } })
class NoSdkModule {}

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/**
 * Telemetry 'full' with @opentelemetry/api alone (no SDK registered): the global tracer would only make
 * non-recording spans, so mcpkit starts none, yet still carries the client's trace context, and traces
 * as soon as an SDK registers a provider.
 */
describe('telemetry full with no OpenTelemetry SDK registered', () => {
  const apps: McpApplication[] = [];
  afterEach(async () => {
    jest.restoreAllMocks();
    trace.disable();
    for (const app of apps.splice(0)) await app.close();
  });
  const connect = async (telemetry: TelemetryOptions) => {
    const app = await McpApplication.create(NoSdkModule, { logger: quiet, telemetry });
    apps.push(app);
    const client = await McpTestClient.connect(app.connectInMemory(), {
      capabilities: { elicitation: {} },
      handlers: { 'elicitation/create': () => ({ action: 'decline' }) },
    });
    return client;
  };

  it('serves requests, and a request to the client carries the trace context the client sent', async () => {
    const client = await connect({ mode: 'full' });
    expect(
      await client.request('tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: { traceparent: TRACEPARENT } }),
    ).toMatchObject({
      content: [{ text: 'hi' }],
    });
    expect(await client.request('tools/call', { name: 'asks', arguments: {}, _meta: { traceparent: TRACEPARENT } })).toMatchObject({
      content: [{ text: 'decline' }],
    });
    const elicit = client.serverRequests.find((r) => r.method === 'elicitation/create')!;
    expect((elicit.params as { _meta?: Record<string, unknown> })._meta?.traceparent).toBe(TRACEPARENT);
  });

  it('a trace context that cannot be read is not carried to the client, and the request is served', async () => {
    jest.spyOn(traceContext, 'extractContext').mockImplementation(() => {
      throw new Error('unreadable');
    });
    const client = await connect({ mode: 'full' });
    expect(await client.request('tools/call', { name: 'asks', arguments: {}, _meta: { traceparent: TRACEPARENT } })).toMatchObject({
      content: [{ text: 'decline' }],
    });
    const elicit = client.serverRequests.find((r) => r.method === 'elicitation/create')!;
    expect((elicit.params as { _meta?: Record<string, unknown> })._meta?.traceparent).toBeUndefined();
  });

  it('traces once an SDK registers its tracer provider, with no new application', async () => {
    const client = await connect({ mode: 'full', spans: { validation: true } });
    await client.request('tools/call', { name: 'echo', arguments: { text: 'before' } });
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    await client.request('tools/call', { name: 'echo', arguments: { text: 'after' }, _meta: { traceparent: TRACEPARENT } });
    const call = exporter.getFinishedSpans().find((s) => s.name === 'tools/call echo');
    expect(call?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(exporter.getFinishedSpans().find((s) => s.name === 'validate_arguments echo')?.parentSpanContext?.spanId).toBe(
      call?.spanContext().spanId,
    );
    expect(exporter.getFinishedSpans().filter((s) => s.name === 'tools/call echo')).toHaveLength(1);
  });

  it('a meter provider with no tracer still records the operation duration, by tool and error type', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const client = await connect({ mode: 'full', meterProvider: new MeterProvider({ readers: [reader] }) });
    await client.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    await client.request('tools/call', { name: 'echo', arguments: { text: 1 } });
    const { resourceMetrics } = await reader.collect();
    const duration = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'mcp.server.operation.duration')!;
    expect(duration.dataPoints.map((p) => p.attributes)).toEqual(
      expect.arrayContaining([
        {
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': 'echo',
          'network.transport': 'pipe',
          'mcp.protocol.version': expect.any(String),
        },
        expect.objectContaining({ 'gen_ai.tool.name': 'echo', 'error.type': 'tool_error' }),
      ]),
    );
  });
});
