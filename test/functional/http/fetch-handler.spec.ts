import { McpApplication } from '../../../src';
import { ErasModule } from '../../fixtures/eras-tools';
import { perRequestBody, perRequestHeaders } from '../../helpers/per-request-http';
import { fetchHandler } from '../../../src/fetch';
import { waitFor } from '../../helpers/wait-for';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };

describe('a fetch handler while its application closes', () => {
  it('answers new requests with 503 while requests in flight finish, as the Koa server does', async () => {
    const app = await McpApplication.create(ErasModule, { logger: quiet, shutdownTimeoutMs: 2_000 });
    const handler = fetchHandler(app);
    const post = (body: Record<string, unknown>) =>
      handler(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: { ...perRequestHeaders(body), host: '127.0.0.1' },
          body: JSON.stringify(body),
        }),
      );
    // A request in flight: the application drains it before closing its front doors.
    const inFlight = post(perRequestBody('tools/call', { name: 'sleeper', arguments: { tag: 'closing' } }, 8));
    const started = async () => {
      const seen = (await (await post(perRequestBody('tools/call', { name: 'seen', arguments: { tag: 'closing' } }))).json()) as {
        result: { content: { text: string }[] };
      };
      return (JSON.parse(seen.result.content[0].text) as { started: boolean }).started;
    };
    await waitFor(started, { what: 'the sleeper to start' });
    const closed = app.close();
    const refused = await post(perRequestBody('tools/list', {}, 9));
    expect({ status: refused.status, body: await refused.json() }).toEqual({
      status: 503,
      body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Server is shutting down' } },
    });
    await closed;
    await inFlight;
  });
});
