import Router from '@koa/router';
import Koa from 'koa';
import request from 'supertest';
import { ACCEPT_BOTH, httpApp, initializeBody, parseSse } from '../../helpers/http-app';

/**
 * mcpkit mounted in a user's existing Koa app (the pattern docs/guide/deployment.md shows): the app's
 * own middleware runs around every MCP request, and its own routes answer beside the MCP path.
 */
describe("the MCP endpoint inside a user's Koa app", () => {
  it("runs the app's logging and auth middleware around MCP requests, beside the app's own route", async () => {
    const { app, transport } = await httpApp();
    const koa = new Koa();
    const log: string[] = [];
    koa.use(async (ctx, next) => {
      log.push(`before ${ctx.method} ${ctx.path}`);
      await next();
      log.push(`after ${ctx.method} ${ctx.path} ${ctx.status}`);
    });
    koa.use(async (ctx, next) => {
      ctx.set('X-App-Checked', 'yes');
      await next();
    });
    const router = new Router();
    router.get('/health-of-my-app', (ctx) => void (ctx.body = { app: 'fine' }));
    koa.use(router.routes());
    koa.use(transport.middleware());
    const server = koa.callback();

    try {
      const init = await request(server).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
      expect(init.status).toBe(200);
      expect(init.headers['x-app-checked']).toBe('yes');
      expect(init.body.result.serverInfo.name).toBe('http-test');
      const session = { Accept: ACCEPT_BOTH, 'Mcp-Session-Id': init.headers['mcp-session-id'] };
      const initialized = await request(server).post('/mcp').set(session).send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(initialized.status).toBe(202);

      const call = (id: number, name: string) =>
        request(server)
          .post('/mcp')
          .set(session)
          .send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
      const quick = await call(2, 'quick');
      expect(quick.status).toBe(200);
      expect(quick.headers['x-app-checked']).toBe('yes');
      expect(quick.body.result.content).toEqual([{ type: 'text', text: 'quick' }]);
      // A tool that logs is answered as an SSE stream: the app's middleware still runs around it.
      const chatty = await call(3, 'chatty')
        .buffer(true)
        .parse((res, done) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => done(null, text));
        });
      expect(chatty.status).toBe(200);
      expect(chatty.headers['content-type']).toBe('text/event-stream');
      expect(chatty.headers['x-app-checked']).toBe('yes');
      const answer = parseSse(chatty.body as string)
        .filter((event) => event.data !== '')
        .map((event) => JSON.parse(event.data) as { id?: number; result?: unknown })
        .find((message) => message.id === 3);
      expect(answer?.result).toMatchObject({ content: [{ type: 'text', text: 'chatty' }] });

      const own = await request(server).get('/health-of-my-app');
      expect(own.status).toBe(200);
      expect(own.body).toEqual({ app: 'fine' });
      expect(own.headers['x-app-checked']).toBe('yes');
      expect((await request(server).get('/elsewhere')).status).toBe(404);

      expect(log).toEqual([
        'before POST /mcp',
        'after POST /mcp 200',
        'before POST /mcp',
        'after POST /mcp 202',
        'before POST /mcp',
        'after POST /mcp 200',
        'before POST /mcp',
        'after POST /mcp 200',
        'before GET /health-of-my-app',
        'after GET /health-of-my-app 200',
        'before GET /elsewhere',
        'after GET /elsewhere 404',
      ]);
    } finally {
      await app.close();
    }
  });
});
