import request from 'supertest';
import { ACCEPT_BOTH, httpApp, initializeBody } from '../../helpers/http-app';
import { fetchHandler } from '../../../src/fetch';

/** The status the fetch handler answers a request with (a POST carries an initialize). */
async function viaFetch(handler: (request: Request) => Promise<Response>, method: string, path: string) {
  const init: RequestInit = { method, headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json', host: '127.0.0.1' } };
  if (method === 'POST') init.body = JSON.stringify(initializeBody());
  const response = await handler(new Request(`http://127.0.0.1${path}`, init));
  await response.arrayBuffer();
  return response.status;
}

describe('the routes of the MCP endpoint', () => {
  it('take a configured path as literal text on both front doors, whatever characters it holds', async () => {
    const { app, callback } = await httpApp({ path: '/tools(beta)/:mcp*' });
    const fetched = fetchHandler(app, { path: '/tools(beta)/:mcp*' });
    try {
      const koa = (method: 'post' | 'put', path: string) =>
        request(callback)
          [method](path)
          .set('Accept', ACCEPT_BOTH)
          .send(initializeBody())
          .then((r) => r.status);
      // The path itself, in another case and with a trailing slash, is the MCP endpoint; a path it would match as a pattern is not.
      for (const path of ['/tools(beta)/:mcp*', '/TOOLS(BETA)/:MCP*/']) {
        expect(await koa('post', path)).toBe(200);
        expect(await viaFetch(fetched, 'POST', path)).toBe(200);
        expect(await koa('put', path)).toBe(405);
        expect(await viaFetch(fetched, 'PUT', path)).toBe(405);
      }
      for (const path of ['/toolsbeta/x', '/tools(beta)/anything', '/tools(beta)/:mcp*//']) {
        expect(await koa('post', path)).toBe(404);
        expect(await viaFetch(fetched, 'POST', path)).toBe(404);
      }
    } finally {
      await app.close();
    }
  });
});
