import { JsonRpcErrorResponse, JsonRpcMessage, ErrorCode, errorResponse } from '../mcp/json-rpc';

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

/** Serializes one outbound message, splicing pre-serialized results in without re-encoding them. */
export function encodeMessage(message: JsonRpcMessage): string {
  if ('result' in message && message.result instanceof RawJson) {
    return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${message.result.json}}`;
  }
  return JSON.stringify(message);
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
  const replyId = idOk ? (id as string | number) : null;
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
