import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { IsString, MaxLength } from 'class-validator';
import { injectable } from 'tsyringe';
import { McpApplication, McpModule, Tool, type TelemetryOptions } from '../../src';
import { McpTestClient } from '../../src/testing';

class EchoInput {
  @IsString() @MaxLength(5) text!: string;
}

@injectable()
class Tools {
  @Tool() echo(input: EchoInput) {
    return input.text;
  }
}

@McpModule({ providers: [Tools], server: { name: 'validation-span', version: '1.0.0' } })
class ValidationSpanModule {}

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };

/** The validate_arguments span is mcpkit's own, not the MCP conventions': made only when `spans.validation` asks. */
describe('telemetry: the argument validation span is opt-in', () => {
  let app: McpApplication;
  afterEach(async () => app.close());

  const spansOf = async (spans: TelemetryOptions['spans']) => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    app = await McpApplication.create(ValidationSpanModule, { logger: quiet, telemetry: { mode: 'full', tracerProvider, spans } });
    const client = await McpTestClient.connect(app.connectInMemory());
    expect(await client.request('tools/call', { name: 'echo', arguments: { text: 'hi' } })).toMatchObject({ content: [{ text: 'hi' }] });
    expect(await client.request('tools/call', { name: 'echo', arguments: { text: 'far too long' } })).toMatchObject({ isError: true });
    return exporter.getFinishedSpans();
  };

  it('by default a tools/call has its server span and no validation child, an invalid call still marked tool_error', async () => {
    const spans = await spansOf(undefined);
    const calls = spans.filter((s) => s.name === 'tools/call echo');
    expect(calls.map((s) => s.attributes['error.type'])).toEqual([undefined, 'tool_error']);
    expect(spans.filter((s) => s.name.startsWith('validate_arguments'))).toEqual([]);
    expect(calls.every((s) => spans.every((other) => other.parentSpanContext?.spanId !== s.spanContext().spanId))).toBe(true);
  });

  it('spans: { validation: false } is the default; { validation: true } adds validate_arguments under each tools/call', async () => {
    expect((await spansOf({ validation: false })).filter((s) => s.name.startsWith('validate_arguments'))).toEqual([]);
    await app.close();
    const spans = await spansOf({ validation: true });
    const calls = spans.filter((s) => s.name === 'tools/call echo');
    const validations = spans.filter((s) => s.name === 'validate_arguments echo');
    expect(validations.map((s) => s.parentSpanContext?.spanId)).toEqual(calls.map((s) => s.spanContext().spanId));
    expect(validations.map((s) => s.attributes['error.type'])).toEqual([undefined, 'invalid_arguments']);
  });
});
