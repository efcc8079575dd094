import { randomBytes } from 'node:crypto';
import { McpContext } from '../context/mcp-context';
import { RequestContext } from '../context/request-context';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../mcp/mcp-types';
import { LATEST_PROTOCOL_VERSION, LOGGING_LEVELS } from '../mcp/mcp-types';
import {
  ErrorCode,
  errorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
  isRequest,
  isResponse,
} from '../mcp/json-rpc';
import { McpError, mcpErrorOf } from '../mcp/mcp.error';
import type { MethodHandler, RequestScope, TransportExtra } from './request-scope';
import { echo } from './wire';

/** Where a session's outbound messages go; `relatedRequestId` names the request they belong to. */
export type MessageSink = (message: JsonRpcMessage, relatedRequestId?: RequestId) => void | Promise<void>;

/** What a session needs from the application that owns it. */
export interface SessionHost {
  readonly handlers: ReadonlyMap<string, MethodHandler>;
  readonly clientRequestTimeoutMs: number;
  logError(message: string, error?: unknown): void;
  onSessionClosed?(session: ServerSession): void;
  rootsListChanged?(session: ServerSession): void;
}

/** A change of the state a session keeps for its client. */
export interface SessionStateChange {
  logLevel?: LoggingLevel;
  subscribe?: string;
  unsubscribe?: string;
}

export interface SessionOptions {
  id?: string;
  /** Refuse requests other than initialize and ping until initialize succeeded (default true). */
  requireInitialize?: boolean;
  /**
   * Owner of what an unauthenticated client creates when the session is not a lasting one (stateless
   * HTTP): task ids then act as capabilities, and such tasks are never listed.
   */
  anonymousOwner?: string;
}

/** The owner of tasks created by unauthenticated stateless requests. */
export const ANONYMOUS_OWNER = 'anonymous';

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  cleanup(): void;
}

/**
 * One client's protocol state: negotiated version, capabilities, log level, requests in flight and
 * requests sent to the client. Transport-agnostic: messages come in through `receive` or
 * `handleRequest`, and go out through the sink.
 */
export class ServerSession {
  readonly id: string | undefined;
  protocolVersion = LATEST_PROTOCOL_VERSION;
  clientInfo: Implementation | undefined;
  clientCapabilities: ClientCapabilities = {};
  logLevel: LoggingLevel | undefined;
  initialized = false;
  closed = false;
  /** Resource URIs this client subscribed to. */
  readonly subscriptions = new Set<string>();
  /** Told when the log level or subscriptions change (a transport that shares sessions saves them). */
  onStateChange?: (change: SessionStateChange) => void;
  private local?: string;
  private readonly requireInitialize: boolean;
  private readonly anonymousOwner: string | undefined;
  private readonly inflight = new Map<RequestId, Scope>();
  private readonly outbound = new Map<RequestId, Pending>();
  private nextOutboundId = 0;

  constructor(
    private readonly host: SessionHost,
    private readonly sink: MessageSink,
    options: SessionOptions = {},
  ) {
    this.id = options.id;
    this.requireInitialize = options.requireInitialize ?? true;
    this.anonymousOwner = options.anonymousOwner;
  }

  /** Handles any inbound message; responses to requests go to the sink. */
  async receive(message: JsonRpcMessage, extra?: TransportExtra): Promise<void> {
    if (isRequest(message)) {
      const response = await this.handleRequest(message, extra);
      if (response) await this.emit(response, message.id);
    } else if (isResponse(message)) {
      this.handleResponse(message);
    } else {
      this.handleNotification(message as JsonRpcNotification);
    }
  }

  /** Runs one request; resolves to its response, or undefined when the client cancelled it. */
  async handleRequest(request: JsonRpcRequest, extra?: TransportExtra): Promise<JsonRpcResponse | undefined> {
    const { id, method } = request;
    if (this.inflight.has(id)) return errorResponse(id, ErrorCode.InvalidRequest, `Request id ${JSON.stringify(echo(id))} is already in use`);
    const handler = this.host.handlers.get(method);
    if (!handler) return errorResponse(id, ErrorCode.MethodNotFound, `Method not found: ${echo(method)}`);
    if (this.requireInitialize && !this.initialized && method !== 'initialize' && method !== 'ping') {
      return errorResponse(id, ErrorCode.InvalidRequest, 'Server not initialized: send initialize first');
    }
    const scope = new Scope(id, method, request.params ?? {}, this, extra);
    this.inflight.set(id, scope);
    try {
      const result = await handler(scope.params, scope);
      return scope.cancelled ? undefined : { jsonrpc: '2.0', id, result: result ?? {} };
    } catch (error) {
      if (scope.cancelled) return undefined;
      const mapped = mcpErrorOf(error);
      if (mapped) return errorResponse(id, mapped.code, mapped.message, mapped.data);
      this.host.logError(`Unhandled error in ${method}`, error);
      return errorResponse(id, ErrorCode.InternalError, 'Internal error');
    } finally {
      this.inflight.delete(id);
      scope.finish();
    }
  }

  handleNotification(notification: JsonRpcNotification): void {
    const params = notification.params ?? {};
    switch (notification.method) {
      case 'notifications/initialized':
        this.initialized = true;
        break;
      case 'notifications/roots/list_changed':
        this.host.rootsListChanged?.(this);
        break;
      case 'notifications/cancelled': {
        this.inflight.get(params.requestId as RequestId)?.cancel(new McpError(ErrorCode.InvalidRequest, typeof params.reason === 'string' ? params.reason : 'Cancelled by the client'));
        break;
      }
      default:
        break;
    }
  }

  handleResponse(response: JsonRpcResponse): void {
    const pending = response.id === null ? undefined : this.outbound.get(response.id);
    if (!pending) return;
    if ('error' in response) pending.reject(new McpError(response.error.code, response.error.message, response.error.data));
    else pending.resolve(response.result);
  }

  /** Sends a notification, attached to a request when `relatedRequestId` is given. */
  async notify(method: string, params: Record<string, unknown> | undefined, relatedRequestId?: RequestId): Promise<void> {
    if (this.closed) return;
    const message: JsonRpcNotification = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    await this.emit(message, relatedRequestId);
  }

  /** Sends a request to the client and resolves with its result. */
  request(method: string, params: Record<string, unknown>, options: { relatedRequestId?: RequestId; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<unknown> {
    if (this.closed) return Promise.reject(new McpError(ErrorCode.InternalError, 'Session closed'));
    const id = `s${++this.nextOutboundId}`;
    return new Promise<unknown>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.host.clientRequestTimeoutMs;
      const abort = (reason: unknown) => {
        void this.notify('notifications/cancelled', { requestId: id, reason: String(reason instanceof Error ? reason.message : reason) });
        pending.cleanup();
        reject(reason instanceof McpError ? reason : new McpError(ErrorCode.InternalError, 'Request to the client was cancelled'));
      };
      const onAbort = () => abort(options.signal?.reason);
      const timer = setTimeout(() => abort(new McpError(-32001, `Request to the client timed out after ${timeoutMs} ms`, { method, timeoutMs })), timeoutMs);
      timer.unref?.();
      const pending: Pending = {
        resolve: (value) => {
          pending.cleanup();
          resolve(value);
        },
        reject: (error) => {
          pending.cleanup();
          reject(error);
        },
        cleanup: () => {
          clearTimeout(timer);
          options.signal?.removeEventListener('abort', onAbort);
          this.outbound.delete(id);
        },
      };
      if (options.signal?.aborted) return abort(options.signal.reason);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.outbound.set(id, pending);
      this.emit({ jsonrpc: '2.0', id, method, params }, options.relatedRequestId).catch((error) => pending.reject(error));
    });
  }

  /**
   * Sends a result for a request that is still running (streamed task results send several
   * responses with the request's id before the final one).
   */
  async sendResult(id: RequestId, result: unknown): Promise<void> {
    if (this.closed) return;
    await this.emit({ jsonrpc: '2.0', id, result }, id);
  }

  /** Identifies the session when the transport gives it no id (stdio, in-memory): tasks are scoped by it. */
  get localId(): string {
    this.local ??= randomBytes(12).toString('base64url');
    return this.local;
  }

  /** Who owns what this session creates: the authenticated subject when there is one, else the session. */
  ownerKey(extra?: TransportExtra): string {
    const subject = extra?.auth?.subject;
    if (subject) return `sub:${subject}`;
    return this.anonymousOwner ?? `ses:${this.id ?? this.localId}`;
  }

  /** Changes the log level or the subscriptions, and tells `onStateChange`. */
  changeState(change: SessionStateChange, notify = true): void {
    if (change.logLevel !== undefined) this.logLevel = change.logLevel;
    if (change.subscribe !== undefined) this.subscriptions.add(change.subscribe);
    if (change.unsubscribe !== undefined) this.subscriptions.delete(change.unsubscribe);
    if (notify) this.onStateChange?.(change);
  }

  /** True when a log message at `level` passes the client's chosen minimum. */
  shouldLog(level: LoggingLevel): boolean {
    return this.logLevel === undefined || LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(this.logLevel);
  }

  /** Aborts requests in flight, fails requests sent to the client, and stops sending. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const scope of this.inflight.values()) scope.cancel(new McpError(ErrorCode.InternalError, 'Session closed'));
    for (const pending of [...this.outbound.values()]) pending.reject(new McpError(ErrorCode.InternalError, 'Session closed'));
    this.host.onSessionClosed?.(this);
  }

  /** True while a request with this id, sent to the client, waits for its answer here. */
  awaits(id: RequestId): boolean {
    return this.outbound.has(id);
  }

  /** True while a request with this id from the client runs here. */
  runs(id: RequestId): boolean {
    return this.inflight.has(id);
  }

  get inflightCount(): number {
    return this.inflight.size;
  }

  private async emit(message: JsonRpcMessage, relatedRequestId?: RequestId): Promise<void> {
    try {
      await this.sink(message, relatedRequestId);
    } catch (error) {
      this.host.logError('Failed to send a message', error);
    }
  }
}

/**
 * One request in flight. Its AbortSignal is created only when a handler asks for it: most requests
 * never look, and an AbortController per request is a measurable share of a small request's cost.
 */
class Scope implements RequestScope {
  private ctx?: RequestContext;
  private controller?: AbortController;
  cancelled = false;
  private reason: unknown;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly params: Record<string, unknown>,
    readonly session: ServerSession,
    readonly extra: TransportExtra | undefined,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }

  context(): McpContext {
    this.ctx ??= new RequestContext(this);
    return this.ctx;
  }

  finish(): void {
    this.ctx?.finish();
  }
}
