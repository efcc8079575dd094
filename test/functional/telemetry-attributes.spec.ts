import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpModule, Prompt, Resource } from '../../src';
import { McpTestClient } from '../../src/testing';

@injectable()
class Content {
  @Prompt() greet(_: EmptyInput) {
    return 'Hello';
  }
  @Resource({ uri: 'docs://readme', mimeType: 'text/plain' }) readme() {
    return 'read me';
  }
}

@McpModule({ providers: [Content], server: { name: 'attributes', version: '1.0.0' } })
class ContentModule {}

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };

/** The server span of a prompt and of a resource, as the MCP semantic conventions name and attribute them. */
describe('telemetry: prompt and resource spans', () => {
  let app: McpApplication;
  afterEach(async () => app.close());

  it('prompts/get is named after its prompt with gen_ai.prompt.name; resources/read keeps its URI out of the name, in mcp.resource.uri', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    app = await McpApplication.create(ContentModule, { logger: quiet, telemetry: { mode: 'full', tracerProvider } });
    const client = await McpTestClient.connect(app.connectInMemory());
    await client.request('prompts/get', { name: 'greet' });
    await client.request('resources/read', { uri: 'docs://readme' });
    const span = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name)?.attributes;
    expect(span('prompts/get greet')).toMatchObject({
      'mcp.method.name': 'prompts/get',
      'gen_ai.prompt.name': 'greet',
      'network.transport': 'pipe',
    });
    expect(span('prompts/get greet')?.['gen_ai.operation.name']).toBeUndefined();
    expect(span('resources/read')).toMatchObject({ 'mcp.method.name': 'resources/read', 'mcp.resource.uri': 'docs://readme' });
    expect(span('resources/read')?.['gen_ai.prompt.name']).toBeUndefined();
  });
});
