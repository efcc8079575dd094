import type Koa from 'koa';
import type { ResolvedHttpOptions } from './http-options';

type Ctx = Koa.ParameterizedContext;

/** A JSON body with a status. */
export function reply(ctx: Ctx, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(body);
}

/** An HTTP error carrying a JSON-RPC error without an id. */
export function fail(ctx: Ctx, status: number, code: number, message: string): void {
  reply(ctx, status, { jsonrpc: '2.0', id: null, error: { code, message } });
}

/** 202 Accepted with an empty body (Koa would otherwise write the status text). */
export function accepted(ctx: Ctx): void {
  ctx.body = null;
  ctx.status = 202;
}

/** True when the Accept header admits `type` (wildcards included). */
export function accepts(ctx: Ctx, type: string): boolean {
  const accept = ctx.get('accept');
  if (!accept) return false;
  const [major] = type.split('/');
  return accept
    .split(',')
    .map((part) => part.split(';')[0].trim().toLowerCase())
    .some((t) => t === type || t === '*/*' || t === `${major}/*`);
}

/** CORS headers for an allowed origin (nothing for another one). */
export function applyCors(ctx: Ctx, cors: ResolvedHttpOptions['cors']): void {
  if (!cors) return;
  const { origins } = cors;
  const origin = ctx.get('origin');
  if (origins === '*') ctx.set('Access-Control-Allow-Origin', '*');
  else if (origin && origins.includes(origin)) {
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.vary('Origin');
  } else return;
  ctx.set('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
  ctx.set('Access-Control-Allow-Headers', 'Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID');
  ctx.set('Access-Control-Expose-Headers', 'Mcp-Session-Id, Mcp-Protocol-Version');
}

/** An OPTIONS answer: CORS headers and the methods allowed. */
export function preflight(ctx: Ctx, cors: ResolvedHttpOptions['cors'], allow: string): void {
  applyCors(ctx, cors);
  ctx.set('Allow', allow);
  ctx.status = 204;
}
