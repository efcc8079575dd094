import { randomBytes } from 'node:crypto';
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
import type { LoggingLevel, ServerCapabilities } from '../mcp/mcp-types';
import { LATEST_PROTOCOL_VERSION } from '../mcp/mcp-types';
import type { Connection, ConnectionOptions, MessageSink, SessionSnapshot, SessionStateChange } from './connection';
import type { Outbound, OutboundRequestOptions, PeerState, SessionControl } from './peer';
import type { MethodHandler, TransportExtra } from './request-scope';
import { SessionScope } from './session-scope';
import { echo } from './wire';

/** What a session needs from the engine that owns it. */
export interface SessionHost {
  /** The handler of a method the server offers now, if any. */
  handler(method: string): MethodHandler | undefined;
  readonly clientRequestTimeoutMs: number;
  /** The capabilities offered now (a restored replica counts as told about them). */
  readonly capabilities: ServerCapabilities;
  logError(message: string, error?: unknown): void;
  onSessionClosed?(session: ServerSession): void;
  rootsListChanged?(peer: PeerState): void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  cleanup(): void;
}

/**
 * One client's protocol state: its PeerState, requests in flight and requests sent to the client.
 * Transport-agnostic: messages come in through `receive` or `handleRequest` and go out through the
 * sink. The only writer of its PeerState; handlers see it through their RequestScope.
 */
export class ServerSession implements Connection, Outbound, SessionControl {
  readonly id: string | undefined;
  closed = false;
  initialized = false;
  /** Resource URIs this client subscribed to. */
  readonly subscriptions = new Set<string>();
  /** What the client was told at initialize: list changes are sent only for these lists. */
  advertised: ServerCapabilities | undefined;
  onStateChange?: (change: SessionStateChange) => void;
  private state: PeerState;
  private local?: string;
  private readonly requireInitialize: boolean;
  private readonly anonymousOwner: string | undefined;
  private readonly isReachable: () => boolean;
  private readonly defaultExtra: TransportExtra | undefined;
  private readonly inflight = new Map<RequestId, SessionScope>();
  private readonly outbound = new Map<RequestId, Pending>();
  private nextOutboundId = 0;

  constructor(
    private readonly host: SessionHost,
    private readonly sink: MessageSink,
    options: ConnectionOptions = {},
  ) {
    this.id = options.id;
    this.requireInitialize = options.requireInitialize ?? true;
    this.anonymousOwner = options.anonymousOwner;
    this.isReachable = options.reachable ?? (() => true);
    this.defaultExtra = options.extra;
    this.state = { protocolVersion: LATEST_PROTOCOL_VERSION, clientCapabilities: {}, ...options.peer, sessionId: options.id };
  }

  get peer(): PeerState {
    return this.state;
  }

  get reachable(): boolean {
    return !this.closed && this.isReachable();
  }

  async receive(message: JsonRpcMessage, extra: TransportExtra | undefined = this.defaultExtra): Promise<void> {
    if (isRequest(message)) {
      const response = await this.handleRequest(message, extra);
      if (response) await this.emit(response, message.id, true);
    } else if (isResponse(message)) {
      this.handleResponse(message);
    } else {
      this.handleNotification(message as JsonRpcNotification);
    }
  }

  async handleRequest(request: JsonRpcRequest, extra: TransportExtra | undefined = this.defaultExtra): Promise<JsonRpcResponse | undefined> {
    const { id, method } = request;
    if (this.inflight.has(id)) return errorResponse(id, ErrorCode.InvalidRequest, `Request id ${JSON.stringify(echo(id))} is already in use`);
    const handler = this.host.handler(method);
    if (!handler) return errorResponse(id, ErrorCode.MethodNotFound, `Method not found: ${echo(method)}`);
    if (this.requireInitialize && !this.initialized && method !== 'initialize' && method !== 'ping') {
      return errorResponse(id, ErrorCode.InvalidRequest, 'Server not initialized: send initialize first');
    }
    const scope = new SessionScope(id, method, request.params ?? {}, this, this.ownerKey(extra), extra);
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

  private handleNotification(notification: JsonRpcNotification): void {
    const params = notification.params ?? {};
    switch (notification.method) {
      case 'notifications/initialized':
        this.initialized = true;
        break;
      case 'notifications/roots/list_changed':
        this.host.rootsListChanged?.(this.state);
        break;
      case 'notifications/cancelled':
        this.inflight.get(params.requestId as RequestId)?.cancel(new McpError(ErrorCode.InvalidRequest, typeof params.reason === 'string' ? params.reason : 'Cancelled by the client'));
        break;
      default:
        break;
    }
  }

  private handleResponse(response: JsonRpcResponse): void {
    const pending = response.id === null ? undefined : this.outbound.get(response.id);
    if (!pending) return;
    if ('error' in response) pending.reject(new McpError(response.error.code, response.error.message, response.error.data));
    else pending.resolve(response.result);
  }

  async notify(method: string, params: Record<string, unknown> | undefined, relatedRequestId?: RequestId): Promise<void> {
    if (this.closed) return;
    const message: JsonRpcNotification = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    await this.emit(message, relatedRequestId);
  }

  request(method: string, params: Record<string, unknown>, options: OutboundRequestOptions = {}): Promise<unknown> {
    if (this.closed) return Promise.reject(new McpError(ErrorCode.InternalError, 'Session closed'));
    const id = `s${++this.nextOutboundId}`;
    return new Promise<unknown>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.host.clientRequestTimeoutMs;
      const abort = (reason: unknown) => {
        // notify never rejects: emit logs what the sink could not send.
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

  async sendIntermediateResult(id: RequestId, result: unknown): Promise<void> {
    if (this.closed) return;
    await this.emit({ jsonrpc: '2.0', id, result }, id, false);
  }

  initialize(peer: Omit<PeerState, 'sessionId'>, advertised: ServerCapabilities): void {
    this.setPeer({ ...peer, sessionId: this.id });
    this.advertised = advertised;
    // Requests that follow are served even if the client never sends notifications/initialized.
    this.initialized = true;
  }

  setLogLevel(level: LoggingLevel): void {
    this.changeState({ logLevel: level }, true);
  }

  subscribe(uri: string): void {
    this.changeState({ subscribe: uri }, true);
  }

  unsubscribe(uri: string): void {
    this.changeState({ unsubscribe: uri }, true);
  }

  snapshot(): SessionSnapshot {
    return { peer: this.state, subscriptions: [...this.subscriptions] };
  }

  restore(snapshot: SessionSnapshot): void {
    this.setPeer({ ...snapshot.peer, sessionId: this.id });
    for (const uri of snapshot.subscriptions) this.subscriptions.add(uri);
    this.advertised ??= this.host.capabilities;
    this.initialized = true;
  }

  applyRemoteChange(change: SessionStateChange): void {
    this.changeState(change, false);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const scope of this.inflight.values()) scope.cancel(new McpError(ErrorCode.InternalError, 'Session closed'));
    for (const pending of [...this.outbound.values()]) pending.reject(new McpError(ErrorCode.InternalError, 'Session closed'));
    this.host.onSessionClosed?.(this);
  }

  awaits(id: RequestId): boolean {
    return this.outbound.has(id);
  }

  runs(id: RequestId): boolean {
    return this.inflight.has(id);
  }

  get inflightCount(): number {
    return this.inflight.size;
  }

  /** Who owns what a request creates: the authenticated subject when there is one, else the session. */
  private ownerKey(extra?: TransportExtra): string {
    const subject = extra?.auth?.subject;
    if (subject) return `sub:${subject}`;
    if (this.anonymousOwner) return this.anonymousOwner;
    // Sessions without an id (stdio, in-memory) get a random local one: tasks are scoped by it.
    this.local ??= this.id ?? randomBytes(12).toString('base64url');
    return `ses:${this.local}`;
  }

  /** The one place the peer state changes. */
  private setPeer(peer: PeerState): void {
    this.state = peer;
  }

  private changeState(change: SessionStateChange, notify: boolean): void {
    if (change.logLevel !== undefined) this.setPeer({ ...this.state, logLevel: change.logLevel });
    if (change.subscribe !== undefined) this.subscriptions.add(change.subscribe);
    if (change.unsubscribe !== undefined) this.subscriptions.delete(change.unsubscribe);
    if (notify) this.onStateChange?.(change);
  }

  private async emit(message: JsonRpcMessage, relatedRequestId?: RequestId, final?: boolean): Promise<void> {
    try {
      await this.sink(message, relatedRequestId, final);
    } catch (error) {
      this.host.logError('Failed to send a message', error);
    }
  }
}
