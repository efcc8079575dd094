import { ErrorCode, type JsonRpcMessage, type JsonRpcResponse, type RequestId } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import type { OutboundRequestOptions } from './peer';

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The requests a handshake session sends to its client (elicitation, sampling, roots): ids, timeouts,
 * cancellation by the caller's signal, and their answers.
 */
export class ClientRequests {
  private readonly pending = new Map<RequestId, Pending>();
  private nextId = 0;

  constructor(
    private readonly timeoutMs: number,
    private readonly emit: (message: JsonRpcMessage, relatedRequestId?: RequestId) => Promise<void>,
    private readonly cancel: (params: Record<string, unknown>) => Promise<void>,
  ) {}

  send(method: string, params: Record<string, unknown>, options: OutboundRequestOptions): Promise<unknown> {
    const id = `s${++this.nextId}`;
    return new Promise<unknown>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.timeoutMs;
      const cleanup = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      const abort = (reason: unknown) => {
        // cancel never rejects: the session logs what its sink could not send.
        void this.cancel({ requestId: id, reason: String(reason instanceof Error ? reason.message : reason) });
        cleanup();
        reject(reason instanceof McpError ? reason : new McpError(ErrorCode.InternalError, 'Request to the client was cancelled'));
      };
      const onAbort = () => abort(options.signal?.reason);
      const timer = setTimeout(
        () => abort(new McpError(-32001, `Request to the client timed out after ${timeoutMs} ms`, { method, timeoutMs })),
        timeoutMs,
      );
      timer.unref?.();
      const pending: Pending = {
        resolve: (value) => {
          cleanup();
          resolve(value);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      };
      if (options.signal?.aborted) return abort(options.signal.reason);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, pending);
      this.emit({ jsonrpc: '2.0', id, method, params }, options.relatedRequestId).catch((error: unknown) =>
        pending.reject(error instanceof Error ? error : new Error(String(error))),
      );
    });
  }

  /** Settles the request a client's response answers (an unknown id is ignored). */
  settle(response: JsonRpcResponse): void {
    const pending = response.id === null ? undefined : this.pending.get(response.id);
    if (!pending) return;
    if ('error' in response) pending.reject(new McpError(response.error.code, response.error.message, response.error.data));
    else pending.resolve(response.result);
  }

  get size(): number {
    return this.pending.size;
  }

  awaits(id: RequestId): boolean {
    return this.pending.has(id);
  }

  failAll(error: McpError): void {
    for (const pending of [...this.pending.values()]) pending.reject(error);
  }
}
