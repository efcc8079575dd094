import { ErrorCode, type JsonRpcMessage } from '../../mcp/json-rpc';
import { checkMessage } from '../../protocol/wire';
import { BodyTimeoutError, BodyTooLargeError, readBody } from './body';
import { type Ctx, fail, replyMessage } from './http-replies';

/**
 * A POST body as one checked JSON-RPC message, or undefined after answering 413, 408 or 400 (or
 * when the client went away mid-body). Shared by every endpoint that takes client messages.
 */
export async function readMessage(ctx: Ctx, limits: { maxBodyBytes: number; bodyTimeoutMs: number }): Promise<JsonRpcMessage | undefined> {
  let raw: Buffer;
  try {
    raw = await readBody(ctx.req, limits.maxBodyBytes, limits.bodyTimeoutMs);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      return void fail(ctx, 413, -32000, `Payload Too Large: the limit is ${limits.maxBodyBytes} bytes`);
    if (error instanceof BodyTimeoutError) {
      // The rest of the body may still come: this connection cannot carry another request.
      ctx.set('Connection', 'close');
      return void fail(ctx, 408, -32000, `Request Timeout: the body did not arrive within ${limits.bodyTimeoutMs} ms`);
    }
    if (ctx.req.destroyed) return undefined; // the client went away mid-body: nobody to answer, nothing wrong here
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return void fail(ctx, 400, ErrorCode.ParseError, 'Parse error: invalid JSON');
  }
  const checked = checkMessage(parsed);
  if (!checked.ok) return void replyMessage(ctx, 400, checked.error);
  return checked.message;
}
