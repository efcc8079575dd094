import { errorResponse, type JsonRpcMessage, type RequestId } from '../../mcp/json-rpc';
import { encodeMessage } from '../../protocol/wire';
import type { HttpExchange } from './http-exchange';

/** Answers with one JSON-RPC message; every JSON body of the MCP path goes through encodeMessage. */
export function replyMessage(exchange: HttpExchange, status: number, message: JsonRpcMessage): void {
  exchange.reply(status, encodeMessage(message), 'application/json');
}

/** Answers with a JSON document (health, readiness, metadata). */
export function replyDocument(exchange: HttpExchange, status: number, document: unknown): void {
  exchange.reply(status, JSON.stringify(document), 'application/json');
}

/** Answers an HTTP error with a JSON-RPC error body (`id` is the request's when it could be read). */
export function fail(exchange: HttpExchange, status: number, code: number, message: string, id: RequestId | null = null): void {
  replyMessage(exchange, status, errorResponse(id, code, message));
}

/** A request's answer as plain JSON; 204 when the client cancelled it (there is nothing to answer). */
export function replyJson(exchange: HttpExchange, response: JsonRpcMessage | undefined): void {
  if (!response) return exchange.reply(204);
  replyMessage(exchange, 200, response);
}

/** 202 Accepted with an empty body. */
export function accepted(exchange: HttpExchange): void {
  exchange.reply(202);
}

/** True when the Accept header admits `type` (wildcards included). */
export function accepts(exchange: HttpExchange, type: string): boolean {
  const accept = exchange.header('accept');
  if (!accept) return false;
  let last = lastAccept;
  if (last?.header !== accept) last = lastAccept = { header: accept, answers: new Map() };
  // Keyed by the callers' literal types: a lookup compares them by identity. The media ranges split from the
  // header are strings of their own, which a Set compares character by character (~0.9 K instructions a request).
  let answer = last.answers.get(type);
  if (answer === undefined) {
    const types = mediaRanges(accept);
    answer = types.has(type) || types.has('*/*') || types.has(`${type.slice(0, type.indexOf('/'))}/*`);
    last.answers.set(type, answer);
  }
  return answer;
}

/** The last Accept header read, and what it was asked (a client sends the same one with every request). */
let lastAccept: { header: string; answers: Map<string, boolean> } | undefined;

/** An Accept header's media ranges, parameters (q=…) aside, lowercased. */
function mediaRanges(accept: string): ReadonlySet<string> {
  return new Set(accept.split(',').map((part) => part.split(';')[0].trim().toLowerCase()));
}

/** True when the request has a body of media type `type` (parameters such as charset aside). */
export function hasBodyOfType(exchange: HttpExchange, type: string): boolean {
  if (!exchange.hasBody) return false;
  return mediaTypeOf(exchange.header('content-type')) === type;
}

/** The media type of the last Content-Type header read: a client sends the same one with every request. */
let lastContentType: { header: string; type: string } | undefined;

/** A Content-Type header's media type, parameters (charset=…) aside, lowercased. */
function mediaTypeOf(header: string): string {
  if (lastContentType?.header === header) return lastContentType.type;
  const type = header.split(';')[0].trim().toLowerCase();
  lastContentType = { header, type };
  return type;
}
