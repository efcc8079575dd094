import { ErrorCode, type JsonRpcMessage } from '../../mcp/json-rpc';
import { checkMessage } from '../../protocol/wire';
import { BodyTooLargeError } from '../../http/body-too-large.error';
import type { HttpExchange } from './http-exchange';
import { fail, replyMessage } from './http-replies';

/**
 * A POST body as one checked JSON-RPC message, or undefined after answering 413 or 400 (or when the
 * client went away mid-body). Shared by every endpoint that takes client messages.
 */
export async function readMessage(exchange: HttpExchange, limits: { maxBodyBytes: number }): Promise<JsonRpcMessage | undefined> {
  let text: string;
  try {
    text = await exchange.readText(limits.maxBodyBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      return void fail(exchange, 413, -32000, `Payload Too Large: the limit is ${limits.maxBodyBytes} bytes`);
    // The client went away mid-body, or the server's requestTimeout ended the connection: nobody to answer.
    if (exchange.clientGone) return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return void fail(exchange, 400, ErrorCode.ParseError, 'Parse error: invalid JSON');
  }
  const checked = checkMessage(parsed);
  if (!checked.ok) return void replyMessage(exchange, 400, checked.error);
  return checked.message;
}
