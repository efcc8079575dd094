import Router from '@koa/router';
import Koa from 'koa';
import request from 'supertest';
import { ACCEPT_BOTH, httpApp, initializeBody } from '../../helpers/http-app';

describe('mounting the MCP endpoint in an existing Koa app', () => {
  it('serves MCP next to the app own routes and middleware', async () => {
    const { app, transport } = await httpApp({ path: '/api/mcp' });
    const koa = new Koa();
    const seen: string[] = [];
    koa.use(async (ctx, next) => {
      seen.push(`${ctx.method} ${ctx.path}`);
      await next();
    });
    const router = new Router();
    router.get('/hello', (ctx) => void (ctx.body = 'world'));
    koa.use(router.routes());
    koa.use(transport.middleware());

    const server = koa.callback();
    expect((await request(server).get('/hello')).text).toBe('world');
    const init = await request(server).post('/api/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
    expect(init.status).toBe(200);
    expect(init.body.result.serverInfo.name).toBe('http-test');
    expect((await request(server).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody())).status).toBe(404);
    expect(seen).toEqual(['GET /hello', 'POST /api/mcp', 'POST /mcp']);
    await app.close();
  });
});
