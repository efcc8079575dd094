import { type EraSupport, McpApplication } from '../../../src';
import { HttpTestModule, initializeBody } from '../../helpers/http-app';
import { envelope, perRequestBody, perRequestHeaders, postPerRequest, postRaw } from '../../helpers/per-request-http';
import { type Frame, RawTransport } from '../../helpers/raw-transport';
import { httpServer } from '../../../src/http';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
const HANDSHAKE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function serve(eras: EraSupport): Promise<{ app: McpApplication; url: string; base: string }> {
  const app = await McpApplication.create(HttpTestModule, { logger: quiet, eras });
  const http = await app.listen(httpServer({ port: 0, host: '127.0.0.1' }));
  return { app, url: http.url, base: http.url.replace(/\/mcp$/, '') };
}

/** The `eras` option: one era only, over HTTP and over a message (stdio) connection. */
describe('the eras option', () => {
  it("'per-request': 2026-07-28 requests are served; initialize is told the versions; no GET, DELETE or HTTP+SSE endpoint", async () => {
    const { app, url, base } = await serve('per-request');
    try {
      const call = await postPerRequest(url, 'tools/call', { name: 'quick', arguments: {} });
      expect(call.body.result).toMatchObject({ resultType: 'complete', content: [{ text: 'quick' }] });
      const discover = await postPerRequest(url, 'server/discover');
      expect(discover.body.result!.supportedVersions).toEqual(['2026-07-28']);

      const init = await postRaw(url, initializeBody(), HANDSHAKE_HEADERS);
      expect(init.status).toBe(400);
      expect(init.body.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '2025-11-25' } });
      // A handshake request that is not initialize is read as a per-request one without its headers.
      const handshakeCall = await postRaw(
        url,
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'quick' } },
        HANDSHAKE_HEADERS,
      );
      expect(handshakeCall.status).toBe(400);
      expect(handshakeCall.body.error!.code).toBe(-32020);

      expect((await fetch(url, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
      expect((await fetch(url, { method: 'DELETE' })).status).toBe(405);
      expect((await fetch(`${base}/sse`, { headers: { accept: 'text/event-stream' } })).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it("'handshake': a 2026-07-28 request gets no per-request answer (a dual-era client falls back), sessions work as before", async () => {
    const { app, url } = await serve('handshake');
    try {
      const perRequest = await postPerRequest(url, 'tools/call', { name: 'quick', arguments: {} });
      expect(perRequest.status).toBe(400);
      // Not one of the per-request codes (-32020..-32022): the client recognizes a handshake server.
      expect(perRequest.body.error!.code).toBe(-32000);

      const init = await fetch(url, { method: 'POST', headers: HANDSHAKE_HEADERS, body: JSON.stringify(initializeBody()) });
      expect(init.status).toBe(200);
      const session = init.headers.get('mcp-session-id')!;
      await init.text();
      // The envelope in _meta is only metadata in a handshake session.
      const body = { ...perRequestBody('tools/call', { name: 'version', arguments: {} }), id: 9 };
      const served = await postRaw(url, body, { ...HANDSHAKE_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
      expect(served.body.result).toMatchObject({ content: [{ text: '2025-11-25' }] });
      expect(served.body.result).not.toHaveProperty('resultType');
    } finally {
      await app.close();
    }
  });

  it("'dual' (the default) serves a 2026-07-28 request and a 2025-11-25 session side by side", async () => {
    const { app, url } = await serve('dual');
    try {
      const init = await fetch(url, { method: 'POST', headers: HANDSHAKE_HEADERS, body: JSON.stringify(initializeBody()) });
      const session = init.headers.get('mcp-session-id')!;
      await init.text();
      const handshake = await postRaw(
        url,
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'version', arguments: {} } },
        { ...HANDSHAKE_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      );
      expect(handshake.body.result).toMatchObject({ content: [{ text: '2025-11-25' }] });
      const body = perRequestBody('tools/call', { name: 'version', arguments: {} });
      const perRequest = await postRaw(url, body, perRequestHeaders(body));
      expect(perRequest.body.result).toMatchObject({ resultType: 'complete', content: [{ text: '2026-07-28' }] });
    } finally {
      await app.close();
    }
  });

  it('pins a message connection on its first initialize or per-request-era request, as the option allows', async () => {
    const cases: [EraSupport, Record<string, unknown>, (f: Frame) => void][] = [
      [
        'dual',
        { id: 1, method: 'server/discover', params: { _meta: envelope() } },
        (f) => expect(f.result).toMatchObject({ resultType: 'complete' }),
      ],
      [
        'per-request',
        { id: 1, method: 'initialize', params: initializeBody().params },
        (f) => expect(f.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'] } }),
      ],
      ['handshake', { id: 1, method: 'server/discover', params: { _meta: envelope() } }, (f) => expect(f.error!.code).toBe(-32601)],
    ];
    for (const [eras, first, check] of cases) {
      const app = await McpApplication.create(HttpTestModule, { logger: quiet, eras });
      const client = new RawTransport();
      app.connect(client, { local: true });
      check(await client.request(first));
      await app.close();
    }
    // A dual connection pinned by initialize stays handshake: a later per-request-era request is not served as one.
    const app = await McpApplication.create(HttpTestModule, { logger: quiet });
    const client = new RawTransport();
    app.connect(client, { local: true });
    await client.request(initializeBody(1));
    expect((await client.request({ id: 2, method: 'server/discover', params: { _meta: envelope() } })).error!.code).toBe(-32601);
    await app.close();
  });

  it('refuses an unknown value', async () => {
    await expect(McpApplication.create(HttpTestModule, { logger: quiet, eras: 'future' as EraSupport })).rejects.toThrow(
      "eras must be 'dual', 'handshake' or 'per-request', not future",
    );
  });
});
