import { ErrorCode, type RequestId } from '../mcp/json-rpc';
import { isClientMessage, type ClientMessage } from './client-transport';
import { SseParser } from './sse-parser';
import type { ResponseLike } from './node-fetch';

/** Longest error body read from a failed HTTP response. */
const MAX_ERROR_BODY_CHARS = 8 * 1024;

/** A parser handing each `message` event's data on (an event with empty data only primes Last-Event-ID). */
export function messageParser(onData: (data: string) => void): SseParser {
  return new SseParser((event) => {
    if (event.event === 'message' && event.data !== '') onData(event.data);
  });
}

/** Reads a text/event-stream body to its end through `parser` (which keeps the last event id even when the read fails). */
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
    text = (await res.text()).slice(0, MAX_ERROR_BODY_CHARS);
  } catch {
    // the body could not be read: the status says enough
  }
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    const error = body?.error;
    if (error && Number.isInteger(error.code) && typeof error.message === 'string') {
      return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) } };
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
