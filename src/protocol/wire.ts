import { type JsonRpcErrorResponse, type JsonRpcMessage, ErrorCode, errorResponse } from '../mcp/json-rpc';

/**
 * A result that is already JSON text. Lists that rarely change (tools/list pages) are serialized once
 * and spliced into responses, so a large list costs a string concatenation per request.
 */
export class RawJson {
  constructor(readonly json: string) {}

  /** Plain JSON.stringify (event stores, pub/sub) sees the value, not this wrapper. */
  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

/** Longest error message sent; a longer one (say, echoing a client's 4 MB method name) is cut. */
export const MAX_ERROR_MESSAGE_CHARS = 1024;
/** Largest error `data` sent, as JSON; larger data is dropped rather than echoed back. */
export const MAX_ERROR_DATA_CHARS = 4096;
/** Longest client string echoed in an error (cursors, names, URIs, ids). */
export const MAX_ECHO_CHARS = 64;

/**
 * What an error may say about a client's value: a string shortened to a few dozen characters, a
 * scalar as it is, and for a structure only what kind it is (a structure can be 10,000 levels deep).
 */
export function echo(value: unknown): string | number | boolean | null {
  if (typeof value === 'string') return value.length > MAX_ECHO_CHARS ? `${value.slice(0, MAX_ECHO_CHARS)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (Array.isArray(value)) return '(an array)';
  if (value === undefined) return '(nothing)';
  return typeof value === 'object' ? '(an object)' : `(a ${typeof value})`;
}

/**
 * Serializes one outbound message: JSON.stringify of it, with a RawJson result written as its text.
 * Never throws: every request must get an answer, so a response that cannot be serialized (a cyclic
 * or 10,000-deep result, a BigInt) becomes a -32603 error for the same id, and `onFailure` (stderr
 * by default) gets one line about it. Error responses are bounded (see MAX_ERROR_*).
 */
export function encodeMessage(message: JsonRpcMessage, onFailure: (line: string) => void = logToStderr): string {
  try {
    if ('result' in message) {
      const result = message.result;
      if (result instanceof RawJson) return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${result.json}}`;
    }
    if ('error' in message && !('method' in message)) return encodeError(message);
    return JSON.stringify(message);
  } catch (error) {
    return fallback(message, error, onFailure);
  }
}

function encodeError(response: JsonRpcErrorResponse): string {
  const { code, message, data } = response.error ?? {};
  let text = typeof message === 'string' ? message : 'Error';
  if (text.length > MAX_ERROR_MESSAGE_CHARS) text = `${text.slice(0, MAX_ERROR_MESSAGE_CHARS)}…`;
  let dataJson: string | undefined;
  if (data !== undefined) {
    try {
      dataJson = JSON.stringify(data);
    } catch {
      dataJson = undefined; // unserializable data is dropped; the error itself still goes out
    }
    if (dataJson !== undefined && dataJson.length > MAX_ERROR_DATA_CHARS) dataJson = undefined;
  }
  const codeJson = Number.isInteger(code) ? String(code) : String(ErrorCode.InternalError);
  return `{"jsonrpc":"2.0","id":${idJson(response.id)},"error":{"code":${codeJson},"message":${JSON.stringify(text)}${dataJson === undefined ? '' : `,"data":${dataJson}`}}}`;
}

function fallback(message: JsonRpcMessage, error: unknown, onFailure: (line: string) => void): string {
  const isResponse = !('method' in message);
  const id = 'id' in message ? message.id : undefined;
  const why = (error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error').replace(/\s+/g, ' ');
  try {
    onFailure(
      `Could not serialize an outbound ${isResponse ? 'response' : 'message'}${id === undefined ? '' : ` (id ${JSON.stringify(echo(id))})`}: ${why.slice(0, 200)}`,
    );
  } catch {
    // a failing logger must not cost the client its answer
  }
  if (isResponse) {
    return `{"jsonrpc":"2.0","id":${idJson(id)},"error":{"code":${ErrorCode.InternalError},"message":"Internal error: the response could not be serialized"}}`;
  }
  // A notification or a request to the client: something valid goes out in its place, and a request
  // left unanswered times out on the server's side as any other would.
  return '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"mcpkit","data":"A message from the server could not be serialized"}}';
}

function idJson(id: unknown): string {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? JSON.stringify(id) : 'null';
}

function logToStderr(line: string): void {
  process.stderr.write(`[mcpkit] error: ${line}\n`);
}

export type DecodeResult = { ok: true; message: JsonRpcMessage } | { ok: false; error: JsonRpcErrorResponse };

/** Parses and shape-checks one inbound message, the only envelope validation on the hot path. */
export function decodeMessage(text: string): DecodeResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: errorResponse(null, ErrorCode.ParseError, 'Parse error: invalid JSON') };
  }
  return checkMessage(value);
}

/** Checks that a parsed value is a single JSON-RPC 2.0 message. */
export function checkMessage(value: unknown): DecodeResult {
  if (Array.isArray(value)) {
    return invalid(null, 'Invalid Request: JSON-RPC batches are not supported');
  }
  if (typeof value !== 'object' || value === null) {
    return invalid(null, 'Invalid Request: a message must be a JSON object');
  }
  const m = value as Record<string, unknown>;
  const id = m.id;
  const idOk = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  const replyId = idOk ? id : null;
  if (m.jsonrpc !== '2.0') return invalid(replyId, 'Invalid Request: jsonrpc must be "2.0"');
  if ('method' in m) {
    if (typeof m.method !== 'string') return invalid(replyId, 'Invalid Request: method must be a string');
    if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params))) {
      return invalid(replyId, 'Invalid Request: params must be an object');
    }
    if ('id' in m && !idOk) return invalid(null, 'Invalid Request: id must be a string or a number');
    return { ok: true, message: m as unknown as JsonRpcMessage };
  }
  // A response is never answered with an error, even a malformed one: that could loop between peers.
  if ('result' in m || 'error' in m) return { ok: true, message: m as unknown as JsonRpcMessage };
  return invalid(replyId, 'Invalid Request: not a request, notification or response');
}

function invalid(id: string | number | null, message: string): DecodeResult {
  return { ok: false, error: errorResponse(id, ErrorCode.InvalidRequest, message) };
}
