import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { join } from 'node:path';
import { McpApplication } from '../../src';
import { PoliciesModule } from '../fixtures/policies.module';
import { serveFetch } from '../helpers/fetch-node-server';
import { ROOT } from '../helpers/paths';
import { postPerRequest } from '../helpers/per-request-http';
import { connectSdkOverStdio } from '../helpers/sdk-stdio';
import { sdk2, sdk2Stdio } from '../helpers/sdk2';
import { spawnHttpServer } from '../helpers/spawn-server';
import { fetchHandler } from '../../src/fetch';

const FIXTURE = join(ROOT, 'dist', 'test', 'fixtures', 'policies-server.js');

/** What a client's failed call carried: the status and body it surfaces, whichever SDK threw it. */
function refusal(error: unknown): { text: string; code?: unknown; data?: unknown } {
  const e = error as { message?: string; code?: unknown; data?: unknown };
  return { text: e.message ?? '', code: e.code, data: e.data };
}

/** Calls `limited` until refused: four calls pass, the fifth is the refusal (what the client threw). */
async function exhaust(call: () => Promise<unknown>): Promise<unknown> {
  for (let i = 0; i < 4; i++) await call();
  return call().then(
    () => {
      throw new Error('the fifth call was not refused');
    },
    (error: unknown) => error,
  );
}

/**
 * A rate-limited call over each front door, as the official clients and a raw HTTP client see it:
 * HTTP 429 with Retry-After and the RateLimit headers, the JSON-RPC error -32023 with retryAfterMs in
 * its body (and over stdio, where there is no status, that error alone).
 */
describe('@RateLimit refusals seen by real clients', () => {
  describe.each([
    ['Koa (a spawned server)', 'koa'],
    ['the fetch handler', 'fetch'],
  ] as const)('over %s', (_name, door) => {
    let url: string;
    let stop: () => Promise<void>;
    beforeEach(async () => {
      if (door === 'koa') {
        const server = await spawnHttpServer(FIXTURE);
        url = server.url;
        stop = server.stop;
      } else {
        const app = await McpApplication.create(PoliciesModule, {
          logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
        });
        const served = await serveFetch(fetchHandler(app));
        url = `${served.url}/mcp`;
        stop = async () => {
          await served.close();
          await app.close();
        };
      }
    });
    afterEach(() => stop());

    it('answers HTTP 429 with Retry-After, RateLimit-Limit and RateLimit-Remaining, and -32023 in the body', async () => {
      for (let i = 0; i < 4; i++) expect((await postPerRequest(url, 'tools/call', { name: 'limited' })).status).toBe(200);
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'limited',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: {
            name: 'limited',
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      });
      expect(res.status).toBe(429);
      const body = (await res.json()) as { id: number; error: { code: number; message: string; data: { retryAfterMs: number } } };
      expect(body).toMatchObject({ id: 9, error: { code: -32023, data: { limit: 4, remaining: 0 } } });
      // 4 a minute refill one every 15 s: Retry-After is retryAfterMs in whole seconds, rounded up.
      expect(body.error.data.retryAfterMs).toBeGreaterThan(14_000);
      expect(res.headers.get('retry-after')).toBe(String(Math.ceil(body.error.data.retryAfterMs / 1000)));
      expect(res.headers.get('ratelimit-limit')).toBe('4');
      expect(res.headers.get('ratelimit-remaining')).toBe('0');
    });

    it('refuses the SDK 1.x client (a 2025-11-25 session) with 429 and -32023, and keeps serving its other tools', async () => {
      const client = new Client({ name: 'sdk1', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const seen = refusal(await exhaust(() => client.callTool({ name: 'limited' })));
      expect(seen.code).toBe(429);
      expect(seen.text).toContain('-32023');
      await expect(client.callTool({ name: 'runs' })).resolves.toMatchObject({ content: [{ type: 'text' }] });
      await client.close();
    });

    it('refuses the SDK 2.x client (2026-07-28) with 429 and -32023', async () => {
      const client = new sdk2.Client(
        { name: 'sdk2', version: '2.4.0' },
        { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new sdk2.StreamableHTTPClientTransport(new URL(url)));
      const seen = refusal(await exhaust(() => client.callTool({ name: 'limited' })));
      // The 2.x client surfaces the HTTP status and the body it came with (SdkHttpError).
      expect(seen.data).toMatchObject({ status: 429 });
      expect(JSON.parse((seen.data as { text: string }).text)).toMatchObject({ error: { code: -32023, data: { limit: 4, remaining: 0 } } });
      await expect(client.callTool({ name: 'runs' })).resolves.toMatchObject({ content: [{ type: 'text' }] });
      await client.close();
    });
  });

  describe('over stdio', () => {
    it('refuses the SDK 1.x client with -32023 and retryAfterMs', async () => {
      const { client } = await connectSdkOverStdio(FIXTURE, ['--stdio']);
      const seen = refusal(await exhaust(() => client.callTool({ name: 'limited' })));
      expect(seen.code).toBe(-32023);
      expect(seen.data).toMatchObject({ limit: 4, remaining: 0, retryAfterMs: expect.any(Number) });
      await expect(client.callTool({ name: 'runs' })).resolves.toMatchObject({ content: [{ type: 'text' }] });
      await client.close();
    });

    it('refuses the SDK 2.x client with -32023 and retryAfterMs', async () => {
      const client = new sdk2.Client({ name: 'sdk2', version: '2.4.0' }, { capabilities: {} });
      await client.connect(new sdk2Stdio.StdioClientTransport({ command: process.execPath, args: [FIXTURE, '--stdio'], stderr: 'pipe' }));
      const seen = refusal(await exhaust(() => client.callTool({ name: 'limited' })));
      expect(seen.code).toBe(-32023);
      expect(seen.data).toMatchObject({ retryAfterMs: expect.any(Number) });
      await client.close();
    });
  });
});
