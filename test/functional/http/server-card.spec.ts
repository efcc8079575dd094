import { request } from 'node:http';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpModule, Tool } from '../../../src';
import { perRequestBody, perRequestHeaders } from '../../helpers/per-request-http';
import { fetchHandler } from '../../../src/fetch';
import { httpServer } from '../../../src/http';

@injectable()
class CardTools {
  @Tool({ description: 'Answers at once' })
  quick(_: EmptyInput) {
    return 'quick';
  }
}

@McpModule({ providers: [CardTools], server: { name: 'card', version: '1.0.0' } })
class CardModule {}

const CARD = {
  $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
  name: 'io.github.ada/card',
  version: '1.0.0',
  capabilities: { tools: {} },
  tools: [{ name: 'quick', description: 'Answers at once', inputSchema: { type: 'object' } }],
};
const PATH = '/.well-known/mcp/server-card';

let app: McpApplication;
beforeEach(async () => {
  app = await McpApplication.create(CardModule, { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
});
afterEach(() => app.close());

/** node:http, not fetch: fetch always sends the Host of the URL. */
function send(url: string, method: string, host?: string, origin?: string) {
  const base = new URL(url);
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const req = request(
      { host: base.hostname, port: base.port, path: PATH, method, headers: { ...(host ? { host } : {}), ...(origin ? { origin } : {}) } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('a server card (SEP-2127) at /.well-known/mcp/server-card', () => {
  it('is served as given, to any origin, with a preflight, beside a working MCP endpoint', async () => {
    const { url } = await app.listen(httpServer({ port: 0, serverCard: CARD }));
    const got = await send(url, 'GET');
    expect({ status: got.status, type: got.headers['content-type'], cors: got.headers['access-control-allow-origin'] }).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      cors: '*',
    });
    expect(got.headers['cache-control']).toBe('max-age=300');
    expect(JSON.parse(got.text)).toEqual(CARD);
    // A web page of any origin may read it: the card is public, only a rebound Host is refused.
    const fromPage = await send(url, 'GET', undefined, 'https://client.example');
    expect({ status: fromPage.status, cors: fromPage.headers['access-control-allow-origin'] }).toEqual({ status: 200, cors: '*' });
    const preflight = await send(url, 'OPTIONS', undefined, 'https://client.example');
    expect({ status: preflight.status, methods: preflight.headers['access-control-allow-methods'] }).toEqual({
      status: 204,
      methods: 'GET, OPTIONS',
    });
    const body = perRequestBody('tools/list', {}, 1);
    const listed = await fetch(url, { method: 'POST', headers: perRequestHeaders(body), body: JSON.stringify(body) });
    expect(((await listed.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name)).toEqual(['quick']);
  });

  it('answers a foreign Host as the MCP path does, and is absent when no card is given', async () => {
    const { url } = await app.listen(httpServer({ port: 0, serverCard: CARD }));
    const foreign = await send(url, 'GET', 'evil.example');
    expect(foreign.status).toBe(403);
    expect(foreign.text).not.toContain('io.github.ada/card');
    const other = await McpApplication.create(CardModule);
    try {
      const bare = await other.listen(httpServer({ port: 0 }));
      expect((await send(bare.url, 'GET')).status).toBe(404);
    } finally {
      await other.close();
    }
  });

  it('is served the same by the fetch handler', async () => {
    const handler = fetchHandler(app, { serverCard: CARD });
    const got = await handler(new Request(`http://127.0.0.1${PATH}`, { headers: { host: '127.0.0.1' } }));
    expect(got.status).toBe(200);
    expect(got.headers.get('access-control-allow-origin')).toBe('*');
    expect(await got.json()).toEqual(CARD);
  });
});
