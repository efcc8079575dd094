import type { RequestId } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';

/** A notifications/progress payload. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface RequestOptions {
  /** Aborting sends notifications/cancelled and rejects the request with an AbortError. */
  signal?: AbortSignal;
  /** Rejects with McpError -32001 (and cancels the request at the server) after this long. Default: the client's requestTimeoutMs. */
  timeoutMs?: number;
  /** Restart the timeout whenever progress arrives. */
  resetTimeoutOnProgress?: boolean;
  /** Asks the server for progress (a progressToken) and receives it. */
  onProgress?: (progress: Progress) => void;
  /** HTTP headers of this request (the Streamable HTTP transport sends them; others ignore them). */
  headers?: Record<string, string>;
  /** Told the id the request is sent under (to relate the server's requests and messages to it). */
  onRequestId?: (id: RequestId) => void;
  /** 2026-07-28: answers the request's input requests (default: the client's request handlers). */
  onInputRequest?: (method: string, params: Record<string, unknown>) => Promise<unknown>;
  /**
   * 2026-07-28: runs round `n` of the request (`send` sends it). A caller that is itself retried (a
   * proxy) keeps each round's result across its retries and hands it back instead of sending again,
   * so that the server's handler state (requestState) carries over.
   */
  round?: (n: number, send: () => Promise<Record<string, unknown>>) => Promise<Record<string, unknown>>;
}

/** JSON-RPC error code of a request the client gave up waiting for (as the official SDK uses it). */
export const REQUEST_TIMEOUT = -32001;
/** JSON-RPC error code of a request whose connection closed (as the official SDK uses it). */
export const CONNECTION_CLOSED = -32000;

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  onProgress?: (progress: Progress) => void;
  reset?: () => void;
  cleanup(): void;
}

/** The error a request rejects with when its signal aborts. */
export function abortError(reason: unknown): Error {
  const error = new Error(reason === undefined ? 'Request aborted' : `Request aborted: ${reasonText(reason)}`, { cause: reason });
  error.name = 'AbortError';
  return error;
}

/** An abort reason as text: an Error's message, a primitive as it prints, an object as JSON (not "[object Object]"). */
function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  if (typeof reason !== 'object' || reason === null) return String(reason);
  try {
    return JSON.stringify(reason);
  } catch {
    return Object.prototype.toString.call(reason); // a cycle, a BigInt inside
  }
}

/** Requests sent and not yet answered, bounded, with their timers, signals and progress handlers. */
export class OutboundRequests {
  private readonly pending = new Map<RequestId, Pending>();
  /** Requests given up on (timeout, abort) whose late response is expected and dropped quietly; the newest 1000. */
  private readonly abandoned = new Set<RequestId>();
  private nextId = 0;

  constructor(
    private readonly maxPending: number,
    private readonly defaultTimeoutMs: number,
    /** Sends notifications/cancelled for a request given up on. */
    private readonly cancel: (id: RequestId, reason: string) => void,
  ) {}

  get size(): number {
    return this.pending.size;
  }

  /** Registers a request; the promise settles on its response, timeout, abort or the connection closing. */
  open(options: RequestOptions): { id: RequestId; promise: Promise<unknown> } {
    if (this.pending.size >= this.maxPending) throw new Error(`Too many requests in flight (${this.maxPending}); wait for some to finish`);
    const id = ++this.nextId;
    const { signal, onProgress, resetTimeoutOnProgress } = options;
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const promise = new Promise<unknown>((resolve, reject) => {
      const entry: Pending = {
        resolve,
        reject,
        onProgress,
        cleanup: () => {
          clearTimeout(timer);
          if (onAbort) signal?.removeEventListener('abort', onAbort);
          this.pending.delete(id);
        },
      };
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(
          () =>
            this.giveUp(
              id,
              new McpError(REQUEST_TIMEOUT, `Request timed out after ${timeoutMs} ms`, { timeout: timeoutMs }),
              'Request timed out',
            ),
          timeoutMs,
        );
        timer.unref();
      };
      if (Number.isFinite(timeoutMs) && timeoutMs > 0) {
        arm();
        if (resetTimeoutOnProgress) entry.reset = arm;
      }
      if (signal) {
        onAbort = () => this.giveUp(id, abortError(signal.reason), reasonText(signal.reason ?? 'aborted'));
        signal.addEventListener('abort', onAbort, { once: true });
      }
      this.pending.set(id, entry);
    });
    return { id, promise };
  }

  /** Settles a request with the response that arrived; false when no such request is waiting or was given up on. */
  settle(id: RequestId, message: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } }): boolean {
    const entry = this.pending.get(id);
    if (!entry) return this.abandoned.delete(id);
    entry.cleanup();
    if (message.error !== undefined) {
      const { code, message: text, data } = message.error ?? {};
      entry.reject(new McpError(Number.isInteger(code) ? (code as number) : -32603, typeof text === 'string' ? text : 'Error', data));
    } else {
      entry.resolve(message.result);
    }
    return true;
  }

  /** Rejects one request without waiting for the server (a failed send). */
  fail(id: RequestId, error: unknown): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    entry.cleanup();
    entry.reject(error);
  }

  /** Routes a notifications/progress to its request (its token is the request id). */
  progress(token: unknown, progress: Progress): void {
    const entry = typeof token === 'string' || typeof token === 'number' ? this.pending.get(token) : undefined;
    if (!entry?.onProgress) return;
    entry.reset?.();
    entry.onProgress(progress);
  }

  /** Rejects every waiting request (the connection closed). */
  rejectAll(error: () => Error): void {
    for (const [, entry] of [...this.pending]) {
      entry.cleanup();
      entry.reject(error());
    }
  }

  private giveUp(id: RequestId, error: Error, reason: string): void {
    if (!this.pending.has(id)) return;
    this.fail(id, error);
    this.abandoned.add(id);
    if (this.abandoned.size > 1000) this.abandoned.delete(this.abandoned.values().next().value as RequestId);
    this.cancel(id, reason);
  }
}
