import type Koa from 'koa';
import { errorResponse, type JsonRpcMessage, type RequestId } from '../../mcp/json-rpc';
import { encodeMessage } from '../../protocol/wire';

export type Ctx = Koa.ParameterizedContext;

/** Answers with one JSON-RPC message; every JSON body of the MCP path goes through encodeMessage. */
export function replyMessage(ctx: Ctx, status: number, message: JsonRpcMessage): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = encodeMessage(message);
}

/** Answers an HTTP error with a JSON-RPC error body (`id` is the request's when it could be read). */
export function fail(ctx: Ctx, status: number, code: number, message: string, id: RequestId | null = null): void {
  replyMessage(ctx, status, errorResponse(id, code, message));
}

/** A request's answer as plain JSON; 204 when the client cancelled it (there is nothing to answer). */
export function replyJson(ctx: Ctx, response: JsonRpcMessage | undefined): void {
  if (!response) {
    ctx.status = 204;
    return;
  }
  replyMessage(ctx, 200, response);
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

/** The connection facts of a request that telemetry records (client.address, client.port, network.protocol.version). */
export function networkOf(ctx: Ctx): { peerAddress?: string; peerPort?: number; httpVersion?: string } {
  const socket = ctx.req.socket;
  return { peerAddress: socket.remoteAddress, peerPort: socket.remotePort, httpVersion: ctx.req.httpVersion };
}
