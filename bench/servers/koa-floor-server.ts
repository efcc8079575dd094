import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { reportReady } from './ipc';

/**
 * The floor of the stateless HTTP tools/call workload: the same request answered by hand with the
 * HTTP stack mcpkit itself is built on (Koa and @koa/router), and nothing else. POST /mcp, the body
 * read and parsed, the JSON-RPC envelope checked, the echo called, its result written as
 * application/json. What mcpkit costs on top of this is the cost of being an MCP framework.
 */
function echo(text: string): string {
  return text;
}

async function readJson(req: Koa.Context['req']): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const app = new Koa();
const router = new Router();
router.post('/mcp', async (ctx) => {
  const message = (await readJson(ctx.req)) as {
    jsonrpc?: unknown;
    id?: string | number;
    method?: unknown;
    params?: { name?: unknown; arguments?: { text?: unknown } };
  };
  ctx.type = 'application/json';
  const text = message.params?.arguments?.text;
  if (message.jsonrpc !== '2.0' || message.method !== 'tools/call' || message.params?.name !== 'echo' || typeof text !== 'string') {
    ctx.status = 400;
    ctx.body = JSON.stringify({ jsonrpc: '2.0', id: message.id ?? null, error: { code: -32600, message: 'Invalid Request' } });
    return;
  }
  ctx.body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: echo(text) }] } });
});
app.use(router.routes());

const listener = app.callback();
// As mcpkit's own listen: Koa settles every request itself.
const server = createServer((req, res) => void listener(req, res));
server.listen(0, '127.0.0.1', () => reportReady({ port: (server.address() as AddressInfo).port }));
