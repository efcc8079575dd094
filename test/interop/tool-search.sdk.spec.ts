import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ROOT } from '../helpers/paths';
import { sdk2, sdk2Stdio } from '../helpers/sdk2';
import { spawnHttpServer } from '../helpers/spawn-server';

const FIXTURE = join(ROOT, 'dist', 'test', 'fixtures', 'catalog-server.js');

/** What the tests ask of a client: the two calls every official client has. */
interface Caller {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

type Transport = 'http' | 'stdio';
const CLIENTS: [string, (transport: Transport, url: string | undefined) => Promise<Caller>][] = [
  [
    'SDK 1.x (2025-11-25)',
    async (transport, url) => {
      const client = new Client({ name: 'search-interop', version: '1.0.0' });
      await client.connect(
        transport === 'http'
          ? new StreamableHTTPClientTransport(new URL(url!))
          : new StdioClientTransport({ command: process.execPath, args: [FIXTURE, '--stdio'], stderr: 'pipe' }),
      );
      return client;
    },
  ],
  ...(['legacy', { pin: '2026-07-28' }] as const).map(
    (mode): [string, (transport: Transport, url: string | undefined) => Promise<Caller>] => [
      `SDK 2.x (${mode === 'legacy' ? '2025-11-25' : '2026-07-28'})`,
      async (transport, url) => {
        const client = new sdk2.Client({ name: 'search-interop', version: '2.4.0' }, { capabilities: {}, versionNegotiation: { mode } });
        await client.connect(
          transport === 'http'
            ? new sdk2.StreamableHTTPClientTransport(new URL(url!))
            : new sdk2Stdio.StdioClientTransport({ command: process.execPath, args: [FIXTURE, '--stdio'], stderr: 'pipe' }),
        );
        return client;
      },
    ],
  ),
];

interface Found {
  structuredContent: { tools: { name: string; inputSchema: { properties: Record<string, unknown> } }[] };
}

/**
 * The official clients against a server of 1,000 tools in search mode, over a real stdio process and
 * real HTTP, in both eras: they list two tools (and the pinned one), find tools by what they do, and
 * call what they found through the call tool, and by its own name.
 */
describe.each(['http', 'stdio'] as const)('tool search over %s', (transport) => {
  let server: Awaited<ReturnType<typeof spawnHttpServer>> | undefined;
  beforeAll(async () => {
    if (transport === 'http') server = await spawnHttpServer(FIXTURE);
  });
  afterAll(async () => {
    await server?.stop();
  });

  describe.each(CLIENTS)('%s', (_name, connect) => {
    let client: Caller;
    beforeAll(async () => {
      client = await connect(transport, server?.url);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('lists the search tool, the call tool and the pinned tool only', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool', 'support_create_ticket']);
    });

    it('finds tools by what they do, with their full definitions, and calls one through the call tool', async () => {
      const found = (await client.callTool({
        name: 'search_tools',
        arguments: { query: 'give a customer their refund back', limit: 3 },
      })) as Found;
      expect(found.structuredContent.tools.length).toBeLessThanOrEqual(3);
      expect(found.structuredContent.tools.map((t) => t.name)).toContain('billing_create_refund');
      const refund = found.structuredContent.tools.find((t) => t.name === 'billing_create_refund')!;
      expect(refund.inputSchema.properties).toHaveProperty('id');
      const called = await client.callTool({ name: 'call_tool', arguments: { name: 'billing_create_refund', arguments: { id: 'r-7' } } });
      expect(called).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('"args":{"id":"r-7"}') }] });
    });

    it('filters by tag, and calls a tool by its own name too', async () => {
      const found = (await client.callTool({
        name: 'search_tools',
        arguments: { query: 'alert', tags: ['monitoring'], limit: 50 },
      })) as Found;
      expect(found.structuredContent.tools.length).toBeGreaterThan(0);
      expect(found.structuredContent.tools.every((t) => t.name.startsWith('monitoring_'))).toBe(true);
      const direct = await client.callTool({ name: 'monitoring_get_alert', arguments: { id: 'a-1' } });
      expect(direct).toMatchObject({ content: [{ text: expect.stringContaining('"record":"alert"') }] });
    });
  });
});
