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
 * A 2026-07-28 request (its body carries `params._meta`) is answered the same way, with what that
 * revision adds: its headers checked against its body, and `resultType` and serverInfo in the result.
 */
function echo(text: string): string {
  return text;
}

async function readJson(req: Koa.Context['req']): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * TELEMETRY_SDK=bare: the floor of the telemetry row with an SDK and no exporter. Each call gets what
 * mcpkit's 'full' telemetry gives it, done by hand on the OpenTelemetry SDK's tracer and meter providers
 * (no span processor, no metric reader, as the mcpkit server's `bare`): a server span with the MCP
 * semantic conventions' attributes, its parent read from the traceparent header, ended at the answer,
 * and one point of the operation duration histogram. What mcpkit adds on top is the cost of its own
 * telemetry code; the rest is the SDK's.
 */
function sdkSpans(): ((ctx: Koa.Context, message: { id?: unknown; params?: { name?: unknown } }) => () => void) | undefined {
  if (process.env.TELEMETRY_SDK !== 'bare') return undefined;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use: only this floor needs the OpenTelemetry SDK */
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const { BasicTracerProvider } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { MeterProvider } = require('@opentelemetry/sdk-metrics') as typeof import('@opentelemetry/sdk-metrics');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const tracer = new BasicTracerProvider({ spanProcessors: [] }).getTracer('floor');
  const duration = new MeterProvider().getMeter('floor').createHistogram('mcp.server.operation.duration', { unit: 's' });
  const propagator = new W3CTraceContextPropagator();
  const getter = { get: (headers: Record<string, unknown>, key: string) => headers[key] as string | undefined, keys: Object.keys };
  return (ctx, message) => {
    const started = performance.now();
    const parent = propagator.extract(api.ROOT_CONTEXT, ctx.req.headers, getter);
    const tool = String(message.params?.name);
    const version = ctx.req.headers['mcp-protocol-version'] as string;
    const span = tracer.startSpan(
      `tools/call ${tool}`,
      {
        kind: api.SpanKind.SERVER,
        attributes: {
          'mcp.method.name': 'tools/call',
          'jsonrpc.request.id': String(message.id),
          'network.transport': 'tcp',
          'gen_ai.tool.name': tool,
          'gen_ai.operation.name': 'execute_tool',
          'mcp.protocol.version': version,
          'network.protocol.name': 'http',
          'network.protocol.version': ctx.req.httpVersion,
          'client.address': ctx.req.socket.remoteAddress!,
          'client.port': ctx.req.socket.remotePort!,
        },
      },
      parent,
    );
    return () => {
      span.end();
      duration.record((performance.now() - started) / 1000, {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': tool,
        'network.transport': 'tcp',
        'mcp.protocol.version': version,
      });
    };
  };
}
const traced = sdkSpans();
/**
 * FLOOR_REQUEST_ONLY=1: every request answered as a 2025-11-25 call, nothing checked: with the 2026-07-28
 * request, what its bytes alone cost (Node building its headers, V8 parsing its body) before any server code.
 */
const REQUEST_ONLY = process.env.FLOOR_REQUEST_ONLY === '1';
/** The serverInfo a 2026-07-28 result carries in its `_meta`: mcpkit's bench server's, for the same bytes on the wire. */
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'mcpkit-bench', version: '1.0.0' } };

const app = new Koa();
const router = new Router();
router.post('/mcp', async (ctx) => {
  const message = (await readJson(ctx.req)) as {
    jsonrpc?: unknown;
    id?: string | number;
    method?: unknown;
    params?: { name?: unknown; arguments?: { text?: unknown }; _meta?: Record<string, unknown> };
  };
  const end = traced?.(ctx, message);
  ctx.type = 'application/json';
  const text = message.params?.arguments?.text;
  if (message.jsonrpc !== '2.0' || message.method !== 'tools/call' || message.params?.name !== 'echo' || typeof text !== 'string') {
    ctx.status = 400;
    ctx.body = JSON.stringify({ jsonrpc: '2.0', id: message.id ?? null, error: { code: -32600, message: 'Invalid Request' } });
    end?.();
    return;
  }
  const meta = REQUEST_ONLY ? undefined : message.params?._meta;
  if (meta === undefined) {
    ctx.body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: echo(text) }] } });
    end?.();
    return;
  }
  // The 2026-07-28 request (bench/request-instructions.ts's protocol floor): the checks the spec requires
  // of its headers against its body (-32020), and the result's resultType and serverInfo.
  const { headers } = ctx.req;
  if (
    headers['mcp-protocol-version'] !== meta['io.modelcontextprotocol/protocolVersion'] ||
    headers['mcp-method'] !== message.method ||
    headers['mcp-name'] !== message.params?.name
  ) {
    ctx.status = 400;
    ctx.body = JSON.stringify({ jsonrpc: '2.0', id: message.id ?? null, error: { code: -32020, message: 'Header mismatch' } });
    end?.();
    return;
  }
  ctx.body = JSON.stringify({
    jsonrpc: '2.0',
    id: message.id,
    result: { resultType: 'complete', content: [{ type: 'text', text: echo(text) }], _meta: SERVER_INFO },
  });
  end?.();
});
app.use(router.routes());

const listener = app.callback();
// As mcpkit's own listen: Koa settles every request itself.
const server = createServer((req, res) => void listener(req, res));
server.listen(0, '127.0.0.1', () => reportReady({ port: (server.address() as AddressInfo).port }));
