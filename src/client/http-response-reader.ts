import { ErrorCode, type RequestId } from '../mcp/json-rpc';
import { isClientMessage, type ClientMessage } from './client-transport';
import { SseParser } from './sse-parser';
import type { ResponseLike } from './node-fetch';

/** Longest error body read from a failed HTTP response. */
const MAX_ERROR_BODY_CHARS = 8 * 1024;
/** Biggest message (JSON body or SSE event) accepted by default. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const MAX_SSE_LINE_CHARS = 16 * 1024 * 1024;

/** A parser handing each `message` event's data on (an event with empty data only primes Last-Event-ID); an event over `maxChars` fails the stream. */
export function messageParser(onData: (data: string) => void, maxChars = DEFAULT_MAX_MESSAGE_BYTES): SseParser {
  return new SseParser(
    (event) => {
      if (event.event === 'message' && event.data !== '') onData(event.data);
    },
    Math.min(MAX_SSE_LINE_CHARS, maxChars),
    maxChars,
  );
}

/**
 * A body as text, read up to `maxBytes`: past it the read stops and the connection is cut; then the
 * text so far is returned when `truncate`, else the read fails. The node:http fetch does it natively;
 * any other fetch's body is read through its stream.
 */
export async function readText(res: ResponseLike, maxBytes: number, truncate = false): Promise<string> {
  if (typeof (res as Partial<BoundedText>).textUpTo === 'function') return (res as unknown as BoundedText).textUpTo(maxBytes, truncate);
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        if (!truncate) throw new Error(`the body is larger than ${maxBytes} bytes`);
        break;
      }
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

/** A response that reads its body up to a limit itself (the node:http fetch's). */
export interface BoundedText {
  textUpTo(maxBytes: number, truncate: boolean): Promise<string>;
}

/** Reads a text/event-stream body to its end through `parser` (which keeps the last event id even when the read fails; a failed read cuts the stream). */
export async function readSse(body: NonNullable<ResponseLike['body']>, parser: SseParser): Promise<SseParser> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
    }
    parser.push(decoder.decode());
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    reader.releaseLock();
  }
  return parser;
}

/** Parses a JSON body (one message or a batch) into messages; anything else is reported via `bad`. */
export function parseMessages(text: string, bad: (error: Error) => void): ClientMessage[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    bad(new Error(`The server sent a body that is not JSON: ${text.slice(0, 120)}`));
    return [];
  }
  const items = Array.isArray(value) ? value : [value];
  const messages: ClientMessage[] = [];
  for (const item of items) {
    if (isClientMessage(item)) messages.push(item);
    else bad(new Error(`The server sent something that is not a JSON-RPC 2.0 message: ${JSON.stringify(item)?.slice(0, 120)}`));
  }
  return messages;
}

/**
 * The JSON-RPC error response a failed HTTP exchange stands for: the server's own JSON-RPC error when
 * the body holds one (re-addressed to the request), else an InternalError naming the HTTP status.
 */
export async function httpErrorResponse(res: ResponseLike, id: RequestId): Promise<ClientMessage> {
  let text = '';
  try {
    text = await readText(res, MAX_ERROR_BODY_CHARS, true);
  } catch {
    // the body could not be read: the status says enough
  }
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    const error = body?.error;
    if (error && Number.isInteger(error.code) && typeof error.message === 'string') {
      return {
        jsonrpc: '2.0',
        id,
        error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) },
      };
    }
  } catch {
    // not JSON: described below
  }
  const detail = text.trim() ? `: ${text.trim().slice(0, 200)}` : '';
  return transportError(id, `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${detail}`, { httpStatus: res.status });
}

/** A JSON-RPC error response for a request the transport could not complete. */
export function transportError(id: RequestId, message: string, data?: Record<string, unknown>): ClientMessage {
  return { jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message, ...(data ? { data } : {}) } };
}
