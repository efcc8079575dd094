import request from 'supertest';
import { httpApp, initializeBody } from '../../helpers/http-app';
import { fetchHandler } from '../../../src/fetch';

const NOT_ACCEPTABLE_POST = 'Not Acceptable: Accept must list application/json and text/event-stream';

/** The status and JSON-RPC error message the fetch handler answers a request with. */
async function viaFetch(handler: (request: Request) => Promise<Response>, method: string, accept: string) {
  const init: RequestInit = { method, headers: { accept, 'content-type': 'application/json', host: '127.0.0.1' } };
  if (method === 'POST') init.body = JSON.stringify(initializeBody());
  const response = await handler(new Request('http://127.0.0.1/mcp', init));
  const body = (await response.json()) as { error?: { message: string } };
  return { status: response.status, message: body.error?.message };
}

/**
 * Content negotiation on the MCP path (MCP Streamable HTTP: a POST's Accept lists both
 * application/json and text/event-stream, a GET's lists text/event-stream). A type given `q=0`
 * is one the client refuses (RFC 9110 §12.4.2): it is not listed.
 */
describe('the Accept header of an MCP request', () => {
  let served: Awaited<ReturnType<typeof httpApp>>;
  let fetched: (request: Request) => Promise<Response>;
  beforeAll(async () => {
    served = await httpApp();
    fetched = fetchHandler(served.app);
  });
  afterAll(() => served.app.close());

  const koa = async (method: 'post' | 'get', accept: string) => {
    const call = request(served.callback)[method]('/mcp').set('Accept', accept);
    const response = method === 'post' ? await call.send(initializeBody()) : await call;
    return { status: response.status, message: (response.body as { error?: { message: string } }).error?.message };
  };

  it.each([
    ['text/event-stream refused with q=0', 'application/json, text/event-stream;q=0'],
    ['application/json refused with q=0', 'application/json;q=0, text/event-stream'],
    ['everything refused', '*/*;q=0'],
  ])('a POST whose Accept has %s is answered 406 on both front doors', async (_name, accept) => {
    const expected = { status: 406, message: NOT_ACCEPTABLE_POST };
    expect(await koa('post', accept)).toEqual(expected);
    expect(await viaFetch(fetched, 'POST', accept)).toEqual(expected);
  });

  it('a GET whose Accept refuses text/event-stream with q=0 is answered 406 on both front doors', async () => {
    const expected = { status: 406, message: 'Not Acceptable: Accept must list text/event-stream' };
    expect(await koa('get', 'text/event-stream;q=0')).toEqual(expected);
    expect(await viaFetch(fetched, 'GET', 'text/event-stream;q=0')).toEqual(expected);
  });

  it.each([
    ['lower but non-zero qualities', 'application/json;q=0.5, text/event-stream;q=0.1'],
    ['wildcards', 'application/*, text/*'],
    ['any type', '*/*'],
    ['upper-case types', 'APPLICATION/JSON, TEXT/EVENT-STREAM'],
    ['the charset of the JSON answers', 'application/json; charset=utf-8, text/event-stream'],
  ])('a POST whose Accept lists both types with %s is served', async (_name, accept) => {
    expect((await koa('post', accept)).status).toBe(200);
    expect((await viaFetch(fetched, 'POST', accept)).status).toBe(200);
  });
});
