import { ErrorCode, type RequestId } from '../mcp/json-rpc';
import { McpError, mcpErrorOf } from '../mcp/mcp.error';
import type { ClientMessage } from './client-transport';

/** What a handler of a server→client request gets besides the params. */
export interface InboundRequestContext {
  /** The id of the server's request. */
  requestId: RequestId;
  /** The client request whose response stream carried this one (Streamable HTTP), if any. */
  relatedRequestId?: RequestId;
  /** Aborts when the server cancels the request (notifications/cancelled) or the connection closes. */
  signal: AbortSignal;
}

/** Answers a request from the server: with its result, or a promise of it (`unknown` covers both). */
export type InboundRequestHandler = (params: Record<string, unknown>, context: InboundRequestContext) => unknown;

/**
 * Answers requests the server sends (elicitation/create, sampling/createMessage, roots/list, ping):
 * one handler per method, -32601 for the rest; a thrown McpError keeps its code, anything else is
 * -32603. At most `maxInFlight` run at once; more are refused rather than queued without bound.
 */
export class InboundRequests {
  private readonly handlers = new Map<string, InboundRequestHandler>([['ping', () => ({})]]);
  private readonly running = new Map<RequestId, AbortController>();

  constructor(
    private readonly maxInFlight: number,
    private readonly respond: (response: ClientMessage, relatedRequestId: RequestId) => void,
  ) {}

  set(method: string, handler: InboundRequestHandler): void {
    this.handlers.set(method, handler);
  }

  remove(method: string): void {
    this.handlers.delete(method);
  }

  /** Runs the handler of `method` for a request that did not come as a message (an MRTR input request); -32601 without one. */
  async call(method: string, params: Record<string, unknown>, context: InboundRequestContext): Promise<unknown> {
    const handler = this.handlers.get(method);
    if (!handler)
      throw new McpError(ErrorCode.MethodNotFound, `The server asked for ${method.slice(0, 64)}, which this client does not answer`);
    return (await handler(params, context)) ?? {};
  }

  handle(message: ClientMessage, relatedRequestId?: RequestId): void {
    const id = message.id as RequestId;
    const method = message.method as string;
    const handler = this.handlers.get(method);
    if (!handler) return this.respond(errorOf(id, ErrorCode.MethodNotFound, `Method not found: ${method.slice(0, 64)}`), id);
    if (this.running.size >= this.maxInFlight || this.running.has(id))
      return this.respond(errorOf(id, ErrorCode.InternalError, 'The client is busy: too many server requests in flight'), id);
    const controller = new AbortController();
    this.running.set(id, controller);
    const params = (typeof message.params === 'object' && message.params !== null ? message.params : {}) as Record<string, unknown>;
    void (async () => {
      try {
        const result = await handler(params, {
          requestId: id,
          ...(relatedRequestId !== undefined ? { relatedRequestId } : {}),
          signal: controller.signal,
        });
        if (!controller.signal.aborted) this.respond({ jsonrpc: '2.0', id, result: result ?? {} }, id);
      } catch (error) {
        if (controller.signal.aborted) return; // the server no longer waits for an answer
        const mapped = mcpErrorOf(error);
        const text = mapped?.message ?? (error instanceof Error ? error.message : String(error));
        this.respond(errorOf(id, mapped?.code ?? ErrorCode.InternalError, text, mapped?.data), id);
      } finally {
        if (this.running.get(id) === controller) this.running.delete(id);
      }
    })();
  }

  /** The server's notifications/cancelled for one of its requests. */
  cancel(requestId: unknown, reason: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const controller = this.running.get(requestId);
    if (!controller) return;
    this.running.delete(requestId);
    controller.abort(typeof reason === 'string' ? reason : 'Cancelled by the server');
  }

  abortAll(reason: string): void {
    for (const controller of this.running.values()) controller.abort(reason);
    this.running.clear();
  }
}

function errorOf(id: RequestId, code: number, message: string, data?: unknown): ClientMessage {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } };
}
