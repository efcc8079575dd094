import { join } from 'node:path';
import { EmptyInput, McpApplication, McpModule, Tool } from '../../../src';
import { loadModuleClass } from '../../../src/cli/load-module';
import { readSurface, withClient } from '../../../src/cli/surface';
import { McpTestClient } from '../../../src/testing';

const ENTRY = join(__dirname, '..', '..', 'fixtures', 'self-serving-entry.ts');

/** What the entry exports: the applications its own code got built. */
function entryState(): { built: string[]; laterCreateCalled: Promise<void> } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the entry as loadModuleClass loaded it (the same module instance)
  return require(ENTRY) as { built: string[]; laterCreateCalled: Promise<void> };
}

class OwnTools {
  @Tool({ description: 'Says hello' })
  hello(_: EmptyInput) {
    return 'hello';
  }
}

@McpModule({ server: { name: 'own', version: '1.0.0' }, providers: [OwnTools] })
class OwnModule {}

describe('the CLI loading an entry that builds and serves its own application (inspect, call)', () => {
  // Loaded once, as the CLI does: a module runs once per process.
  let module: ReturnType<typeof loadModuleClass>;
  beforeAll(() => {
    module = loadModuleClass(ENTRY);
  });

  it("lists the module the entry passes to McpApplication.create; the entry's own code builds nothing, awaits included", async () => {
    expect(module.name).toBe('SelfServingModule');
    const surface = await withClient(module, readSurface);
    expect(surface.tools.map((t) => t.name)).toEqual(['ping']);
    await entryState().laterCreateCalled;
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(entryState().built).toEqual([]);
  });

  it('builds an application created in the same process after the entry was loaded', async () => {
    const app = await McpApplication.create(OwnModule);
    const client = await McpTestClient.connect(app.connectInMemory());
    expect(await client.request('tools/call', { name: 'hello', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'hello' }] });
    await client.close();
    await app.close();
  });
});
