import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpApplication, McpModule } from '../../src';
import type { McpClientTransport } from '../../src/client';
import { waitFor } from '../helpers/wait-for';
import { proxy } from '../../src/compose';

@McpModule({ server: { name: 'gateway', version: '1.0.0' }, providers: [] })
class EmptyModule {}

type Message = { jsonrpc: '2.0'; id?: number | string; method?: string; params?: Record<string, unknown> };

/**
 * A scripted 2026-07-28 server in process: discover, tools/list (its tools can change), and
 * subscriptions/listen streams the test can end (as a server restarting its streams would).
 */
class ScriptedPerRequestServer implements McpClientTransport {
  onmessage?: McpClientTransport['onmessage'];
  onclose?: () => void;
  tools = ['first'];
  listens: (string | number)[] = [];
  listCalls = 0;

  async start(): Promise<void> {}
  async close(): Promise<void> {
    this.onclose?.();
  }
  async send(message: Message): Promise<void> {
    const reply = (result: Record<string, unknown>) =>
      void setImmediate(() => this.onmessage?.({ jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', ...result } }));
    switch (message.method) {
      case 'server/discover':
        return reply({
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: { listChanged: true } },
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'scripted', version: '1' } },
        });
      case 'tools/list':
        this.listCalls++;
        return reply({ tools: this.tools.map((name) => ({ name, inputSchema: { type: 'object' } })) });
      case 'subscriptions/listen':
        this.listens.push(message.id!);
        setImmediate(() =>
          this.onmessage?.({
            jsonrpc: '2.0',
            method: 'notifications/subscriptions/acknowledged',
            params: { notifications: message.params?.notifications },
          }),
        );
        return;
      default:
        return; // nothing else is scripted: it goes unanswered
    }
  }
  /** Ends the newest listen stream with its final result. */
  endListen(): void {
    const id = this.listens.at(-1);
    this.onmessage?.({ jsonrpc: '2.0', id, result: { resultType: 'complete' } });
  }
}

describe('proxying a 2026-07-28 server whose list-change stream ends', () => {
  it('opens the stream again and reads the lists again, so a change made meanwhile reaches clients', async () => {
    const errors: string[] = [];
    const app = await McpApplication.create(EmptyModule, {
      logger: { error: (m) => void errors.push(m), warn: () => undefined, info: () => undefined },
    });
    const far = new ScriptedPerRequestServer();
    await proxy(app, 's', far, { era: 'per-request' });
    const client = new Client({ name: 'sdk', version: '1' });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes++);
    await client.connect(app.connectInMemory());
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['s_first']);
    expect(far.listens).toHaveLength(1);

    // The stream ends, and the far server's tools change before it is open again.
    far.endListen();
    far.tools = ['first', 'second'];
    await waitFor(() => far.listens.length === 2, { timeoutMs: 5_000 });
    await waitFor(async () => (await client.listTools()).tools.length === 2);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['s_first', 's_second']);
    await waitFor(() => changes > 0);
    expect(errors).toEqual(['The list-change stream of the server proxied at "s" ended; opening it again']);

    // Closing the application lets the stream go without opening it again.
    await app.close();
    expect(far.listens).toHaveLength(2);
  });
});
