import { errorResponse, type JsonRpcMessage, type RequestId } from '../../mcp/json-rpc';
import { encodeMessage } from '../../protocol/wire';
import type { HttpExchange } from './http-exchange';

/**
 * The media types of the endpoint's answers, as content negotiation offers them: both front doors
 * label a JSON answer with its charset, so an Accept naming that charset takes it too.
 */
export const JSON_ANSWER = 'application/json; charset=utf-8';
export const SSE_ANSWER = 'text/event-stream';

/** Answers with one JSON-RPC message; every JSON body of the MCP path goes through encodeMessage. */
export function replyMessage(exchange: HttpExchange, status: number, message: JsonRpcMessage): void {
  exchange.reply(status, encodeMessage(message), 'application/json');
}

/** Answers with a JSON document (health, readiness, metadata). */
export function replyDocument(exchange: HttpExchange, status: number, document: unknown): void {
  exchange.reply(status, JSON.stringify(document), 'application/json');
}

/**
 * Serves a discovery document (OAuth metadata, the server card) to any origin: the CORS preflight, then the
 * document with a 5-minute cache. `document` answers undefined when it has replied already (an error).
 */
export function serveDiscovery(exchange: HttpExchange, document: () => unknown): void {
  exchange.setHeader('Access-Control-Allow-Origin', '*');
  if (exchange.method === 'OPTIONS') {
    exchange.setHeader('Access-Control-Allow-Methods', 'GET, OPTIONS');
    exchange.setHeader('Access-Control-Allow-Headers', 'Mcp-Protocol-Version');
    exchange.reply(204);
    return;
  }
  const body = document();
  if (body === undefined) return;
  exchange.setHeader('Cache-Control', 'max-age=300');
  replyDocument(exchange, 200, body);
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
