import { ErrorCode, type JsonRpcMessage } from '../../mcp/json-rpc';
import { checkMessage } from '../../protocol/wire';
import { BodyTimeoutError, BodyTooLargeError } from '../../http/body';
import type { HttpExchange } from './http-exchange';
import { fail, replyMessage } from './http-replies';

/** A leading byte-order mark is kept, as JSON does not allow one: such a body is a parse error on every runtime. */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A POST body as one checked JSON-RPC message, or undefined after answering 413, 408 or 400 (or
 * when the client went away mid-body). Shared by every endpoint that takes client messages.
 */
export async function readMessage(
  exchange: HttpExchange,
  limits: { maxBodyBytes: number; bodyTimeoutMs: number },
): Promise<JsonRpcMessage | undefined> {
  let raw: Uint8Array;
  try {
    raw = await exchange.readBody(limits.maxBodyBytes, limits.bodyTimeoutMs);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      return void fail(exchange, 413, -32000, `Payload Too Large: the limit is ${limits.maxBodyBytes} bytes`);
    if (error instanceof BodyTimeoutError) {
      // The rest of the body may still come: this connection cannot carry another request.
      exchange.setHeader('Connection', 'close');
      return void fail(exchange, 408, -32000, `Request Timeout: the body did not arrive within ${limits.bodyTimeoutMs} ms`);
    }
    if (exchange.clientGone) return undefined; // the client went away mid-body: nobody to answer, nothing wrong here
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(raw));
  } catch {
    return void fail(exchange, 400, ErrorCode.ParseError, 'Parse error: invalid JSON');
  }
  const checked = checkMessage(parsed);
  if (!checked.ok) return void replyMessage(exchange, 400, checked.error);
  return checked.message;
}
