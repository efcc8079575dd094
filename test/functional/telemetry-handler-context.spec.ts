import { trace, type Span } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { McpApplication, McpModule, Tool } from '../../src';
import { McpTestClient } from '../../src/testing';
import { useAsyncContextManager } from '../helpers/otel-context';

class TextInput {
  @IsString() text!: string;
}

/** What the handler saw: the span active when it started, and after an await. */
let seen: { atStart?: Span; afterAwait?: Span } = {};
let exporter = new InMemorySpanExporter();

@injectable()
class Tools {
  @Tool() async traced(input: TextInput) {
    seen.atStart = trace.getActiveSpan();
    await new Promise((resolve) => setImmediate(resolve));
    seen.afterAwait = trace.getActiveSpan();
    // A span of the application's own, started the way instrumentation does: from the active context.
    trace.getTracer('app').startSpan('app work').end();
    return input.text;
  }
}

@McpModule({ providers: [Tools], server: { name: 'handler-context', version: '1.0.0' } })
class HandlerContextModule {}

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';

/** What the server span's context is for: user code in the handler sees it, with a context manager. */
describe('the server span and the tool handler', () => {
  let app: McpApplication | undefined;
  beforeEach(() => {
    seen = {};
    exporter = new InMemorySpanExporter();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    trace.disable();
    await app?.close();
    app = undefined;
  });
  const call = async () => {
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    // The global provider too: the handler starts its span through trace.getTracer(), as an application does.
    trace.setGlobalTracerProvider(provider);
    app = await McpApplication.create(HandlerContextModule, { logger: quiet, telemetry: { mode: 'full', tracerProvider: provider } });
    const client = await McpTestClient.connect(app.connectInMemory());
    const params = { name: 'traced', arguments: { text: 'hi' }, _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } };
    expect(await client.request('tools/call', params)).toMatchObject({ content: [{ text: 'hi' }] });
    const span = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name)!;
    return { request: span('tools/call traced'), own: span('app work') };
  };

  it('with a context manager (an SDK registers one), the handler runs in its server span, across awaits', async () => {
    const stopContext = useAsyncContextManager();
    try {
      const { request, own } = await call();
      expect(request.parentSpanContext?.spanId).toBe(PARENT_ID);
      expect(seen.atStart?.spanContext().spanId).toBe(request.spanContext().spanId);
      expect(seen.afterAwait?.spanContext().spanId).toBe(request.spanContext().spanId);
      expect(own.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    } finally {
      stopContext();
    }
  });

  it("with none, the server span's parent is the client's, and the handler's own span is a root span", async () => {
    const { request, own } = await call();
    expect(request.parentSpanContext?.spanId).toBe(PARENT_ID);
    // Nothing is active without a context manager: the handler's own span is a root span, as documented.
    expect(seen.atStart).toBeUndefined();
    expect(own.parentSpanContext).toBeUndefined();
  });
});
