import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ListToolsRequestSchema,
  CallToolRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpApplication, McpModule } from '../../src';
import { proxy } from '../../src/compose';
import { waitFor } from '../helpers/wait-for';

@McpModule({ server: { name: 'gateway', version: '1.0.0' }, providers: [] })
class EmptyModule {}

async function gateway() {
  const errors: string[] = [];
  const app = await McpApplication.create(EmptyModule, {
    logger: { error: (m) => void errors.push(m), warn: () => undefined, info: () => undefined },
  });
  return { app, errors };
}

async function sdkClient(app: McpApplication) {
  const client = new Client({ name: 'sdk', version: '1' });
  await client.connect(app.connectInMemory());
  return client;
}

/** The proxy against remote servers whose lists are unusual or broken: an in-process SDK server over the SDK's in-memory transport. */
describe('proxying remote lists mcpkit would not accept from its own definitions', () => {
  it('serves resources that share a name (MCP does not require unique names)', async () => {
    const far = new McpServer({ name: 'files', version: '1.0.0' });
    far.registerResource('README.md', 'file:///a/README.md', { mimeType: 'text/markdown' }, async (uri) => ({
      contents: [{ uri: uri.href, text: 'a' }],
    }));
    far.registerResource('README.md', 'file:///b/README.md', { mimeType: 'text/markdown' }, async (uri) => ({
      contents: [{ uri: uri.href, text: 'b' }],
    }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await far.connect(serverSide);
    const { app, errors } = await gateway();
    await proxy(app, 'files', clientSide);
    const client = await sdkClient(app);
    expect((await client.listResources()).resources.map((r) => [r.uri, r.name])).toEqual([
      ['file:///files/a/README.md', 'files_README.md'],
      ['file:///files/b/README.md', 'files_README.md'],
    ]);
    expect((await client.readResource({ uri: 'file:///files/b/README.md' })).contents).toEqual([
      { uri: 'file:///files/b/README.md', text: 'b' },
    ]);
    expect(errors).toEqual([]);
    await app.close();
  });

  it('skips (and reports) definitions of the wrong shape and repeated names, serving the rest', async () => {
    const far = new Server({ name: 'broken', version: '1.0.0' }, { capabilities: { tools: {} } });
    far.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        { name: 'good', inputSchema: { type: 'object' } },
        { name: 'good', inputSchema: { type: 'object' }, description: 'again' },
        { name: 'x'.repeat(200), inputSchema: { type: 'object' } },
        { name: 'noSchema' },
      ] as never,
    }));
    far.setRequestHandler(CallToolRequestSchema, async (request) => ({
      content: [{ type: 'text', text: `called ${request.params.name}` }],
    }));
    // The SDK's client-side validation would refuse this list; the remote server is hostile, so send it raw.
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await far.connect(serverSide);
    const { app, errors } = await gateway();
    await proxy(app, 'b', clientSide);
    const client = await sdkClient(app);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['b_good']);
    expect((await client.callTool({ name: 'b_good', arguments: {} })).content).toEqual([{ type: 'text', text: 'called good' }]);
    expect(errors).toHaveLength(3);
    expect(errors.every((e) => e.startsWith('The proxied tool '))).toBe(true);
    await app.close();
  });

  it('keeps at most 10,000 remote subscriptions: past it the oldest is unsubscribed at the remote server, no client is refused', async () => {
    const far = new McpServer({ name: 'items', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
    far.registerResource('item', new ResourceTemplate('x://item/{id}', { list: undefined }), {}, async (uri) => ({
      contents: [{ uri: uri.href, text: 'item' }],
    }));
    const counts = { subscribe: 0, unsubscribe: 0 };
    far.server.setRequestHandler(SubscribeRequestSchema, async () => (counts.subscribe++, {}));
    far.server.setRequestHandler(UnsubscribeRequestSchema, async () => (counts.unsubscribe++, {}));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await far.connect(serverSide);
    const { app, errors } = await gateway();
    await proxy(app, 'p', clientSide);
    const client = await sdkClient(app);
    for (let i = 0; i <= 10_000; i++) await client.subscribeResource({ uri: `x://p/item/${i}` });
    // The same URI again is not subscribed twice.
    await client.subscribeResource({ uri: 'x://p/item/10000' });
    // The oldest is unsubscribed at the remote server without waiting for its answer.
    await waitFor(() => counts.unsubscribe > 0, { what: 'the oldest subscription unsubscribed at the remote server' });
    expect(counts).toEqual({ subscribe: 10_001, unsubscribe: 1 });
    expect(errors).toEqual([]);
    await app.close();
  }, 60_000);
});
