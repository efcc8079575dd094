import { McpApplication } from '../../../src';
import { McpClient, type McpClientOptions } from '../../../src/client';
import { HttpTestModule } from '../../helpers/http-app';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
type Text = { content: { text: string }[] };

/** Connects a client with this era option to a server with this eras option; reports what it got. */
async function connected(
  era: McpClientOptions['era'],
  eras?: 'dual' | 'handshake' | 'per-request',
): Promise<{ era: string | undefined; servedUnder: string }> {
  const app = await McpApplication.create(HttpTestModule, { logger: quiet, eras });
  const client = new McpClient({ era });
  try {
    await client.connect(app.connectInMemory());
    const answer = await client.request<Text>('tools/call', { name: 'version', arguments: {} });
    return { era: client.era, servedUnder: answer.content[0].text };
  } finally {
    await client.close();
    await app.close();
  }
}

/** The client's `era` option, and the era it reports once connected. */
describe('McpClient era', () => {
  it("'handshake' (the default) initializes; 'per-request' sends server/discover and envelopes each request", async () => {
    expect(await connected(undefined)).toEqual({ era: 'handshake', servedUnder: '2025-11-25' });
    expect(await connected('handshake')).toEqual({ era: 'handshake', servedUnder: '2025-11-25' });
    expect(await connected('per-request')).toEqual({ era: 'per-request', servedUnder: '2026-07-28' });
  });

  it("'auto' is per-request with a server that serves it, and falls back to initialize with one that does not", async () => {
    expect(await connected('auto')).toEqual({ era: 'per-request', servedUnder: '2026-07-28' });
    expect(await connected('auto', 'handshake')).toEqual({ era: 'handshake', servedUnder: '2025-11-25' });
    await expect(connected('per-request', 'handshake')).rejects.toThrow();
  });
});
