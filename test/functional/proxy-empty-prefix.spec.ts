import { injectable } from 'tsyringe';
import { DuplicateToolNameError, EmptyInput, McpApplication, McpModule, Resource, Tool } from '../../src';
import type { McpClientTransport } from '../../src/client';
import { GatewayModule } from '../helpers/far-server';
import { McpTestClient } from '../../src/testing';
import { proxy } from '../../src/compose';

@injectable()
class FarTools {
  @Tool({ description: 'Echoes' }) echo(_: EmptyInput) {
    return 'far echo';
  }
  @Resource({ uri: 'notes://index', mimeType: 'text/plain' }) index() {
    return 'far index';
  }
}

@McpModule({ server: { name: 'far', version: '1.0.0' }, providers: [FarTools] })
class FarModule {}

const quiet = { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } };

/** proxy(app, '', …): the remote server's names and URIs are served unchanged, beside the application's own. */
describe('proxying under the empty prefix', () => {
  const apps: McpApplication[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });

  async function far(): Promise<McpClientTransport> {
    const app = await McpApplication.create(FarModule, quiet);
    apps.push(app);
    return app.connectInMemory();
  }

  it('keeps tool names and resource URIs, and forwards calls and reads', async () => {
    const gateway = await McpApplication.create(GatewayModule, quiet);
    apps.push(gateway);
    await proxy(gateway, '', await far());
    const client = await McpTestClient.connect(gateway.connectInMemory());
    try {
      const tools = (await client.request('tools/list')) as { tools: { name: string }[] };
      expect(tools.tools.map((t) => t.name).sort()).toEqual(['echo', 'local']);
      const resources = (await client.request('resources/list')) as { resources: { uri: string; name: string }[] };
      expect(resources.resources.map((r) => r.uri)).toEqual(['notes://index']);
      expect(await client.request('tools/call', { name: 'echo', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'far echo' }],
      });
      expect(await client.request('resources/read', { uri: 'notes://index' })).toMatchObject({
        contents: [{ uri: 'notes://index', text: 'far index' }],
      });
    } finally {
      await client.close();
    }
  });

  it('still refuses a name that collides, and a second proxy under the empty prefix', async () => {
    const gateway = await McpApplication.create(FarModule, quiet);
    apps.push(gateway);
    await expect(proxy(gateway, '', await far())).rejects.toThrow(DuplicateToolNameError);
    const other = await McpApplication.create(GatewayModule, quiet);
    apps.push(other);
    await proxy(other, '', await far());
    await expect(proxy(other, '', await far())).rejects.toThrow(/already mounted/);
  });
});
