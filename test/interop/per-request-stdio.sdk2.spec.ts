import { join } from 'node:path';
import { connectSdkOverStdio } from '../helpers/sdk-stdio';
import { perRequestClient, perRequestPrimitiveSuite, NEGOTIATIONS, textOf } from '../helpers/per-request-client-suite';
import { ROOT } from '../helpers/paths';
import { sdk2Stdio } from '../helpers/sdk2';

const ERAS_SERVER = join(ROOT, 'dist', 'test', 'fixtures', 'eras-server.js');

/**
 * The official 2.x client over a real stdio process. In `auto` mode it probes with server/discover on a
 * short-lived sibling process first, then starts the real one, which its first enveloped request pins per-request.
 */
describe.each(NEGOTIATIONS)('2026-07-28 over stdio, SDK 2.x client %s', (label, negotiation) => {
  let connected: ReturnType<typeof perRequestClient> & { wire: unknown[] };
  let stderr = '';
  beforeAll(async () => {
    connected = { ...perRequestClient(negotiation), wire: [] };
    const transport = new sdk2Stdio.StdioClientTransport({ command: process.execPath, args: [ERAS_SERVER, '--stdio'], stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await connected.client.connect(transport);
    // Every message the client's transport delivers, in order: what the server wrote on stdout.
    const deliver = transport.onmessage!;
    transport.onmessage = (message) => {
      connected.wire.push(message);
      deliver(message);
    };
  });
  afterAll(async () => {
    await connected.client.close();
    expect(stderr).not.toMatch(/error/i);
  });
  perRequestPrimitiveSuite(() => connected, `stdio-${label}`);
});

describe('the same stdio server, 1.x client', () => {
  it('still negotiates a 2025-11-25 session with initialize', async () => {
    const { client } = await connectSdkOverStdio(ERAS_SERVER, ['--stdio']);
    expect(client.getServerVersion()).toMatchObject({ name: 'eras-fixture', version: '2.0.0' });
    const who = JSON.parse(textOf((await client.callTool({ name: 'whoami', arguments: {} })) as { content: unknown }));
    expect(who).toEqual({ version: '2025-11-25', client: 'interop-test', subject: null });
    await client.close();
  });
});
