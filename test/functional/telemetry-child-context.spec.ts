import type { Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { injectable } from 'tsyringe';
import { McpApplication, McpModule, Tool } from '../../src';
import { McpTestClient } from '../../src/testing';
import { useAsyncContextManager } from '../helpers/otel-context';

/** The tracer a validator uses for a span of its own, set by each test. */
let validatorTracer: Tracer | undefined;

@ValidatorConstraint({ name: 'traced' })
class Traced implements ValidatorConstraintInterface {
  validate(value: unknown) {
    validatorTracer?.startSpan('inside validation').end();
    return typeof value === 'string';
  }
}

class TracedInput {
  @Validate(Traced) text!: string;
}

@injectable()
class Tools {
  @Tool() echo(input: TracedInput) {
    return input.text;
  }
}

@McpModule({ providers: [Tools], server: { name: 'child-context', version: '1.0.0' } })
class ChildContextModule {}

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };

/** The validation span's context is made for the context manager that makes it active, and only then. */
describe('the context of a child span (argument validation)', () => {
  const apps: McpApplication[] = [];
  afterEach(async () => {
    jest.restoreAllMocks();
    validatorTracer = undefined;
    for (const app of apps.splice(0)) await app.close();
  });
  const call = async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    validatorTracer = tracerProvider.getTracer('validator');
    const app = await McpApplication.create(ChildContextModule, {
      logger: quiet,
      telemetry: { mode: 'full', tracerProvider, spans: { validation: true } },
    });
    apps.push(app);
    const client = await McpTestClient.connect(app.connectInMemory());
    expect(await client.request('tools/call', { name: 'echo', arguments: { text: 'hi' } })).toMatchObject({ content: [{ text: 'hi' }] });
    const span = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name)!;
    return { validation: span('validate_arguments echo'), inside: span('inside validation'), call: span('tools/call echo') };
  };

  it('with a context manager (an SDK registers one), a span started during validation is its child', async () => {
    const stopContext = useAsyncContextManager();
    try {
      const { validation, inside, call: request } = await call();
      expect(validation.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      expect(inside.parentSpanContext?.spanId).toBe(validation.spanContext().spanId);
    } finally {
      stopContext();
    }
  });

  it('with none, the validation span is still the request span child', async () => {
    const { validation, call: request } = await call();
    expect(validation.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  });
});
