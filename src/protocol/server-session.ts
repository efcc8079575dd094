import { randomBytes } from 'node:crypto';
import {
  ErrorCode,
  errorResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
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
import { ClientRequests } from './client-requests';
import type { ModernDispatch } from './modern/modern-dispatch';
import type { ModernScope } from './modern/modern-scope';
import { type Era, MetaKey } from '../mcp/eras';
import { echo } from './wire';
import { ownerOf } from '../auth/principal';
import { classifyInbound, type LegacyInbound, type ModernInbound } from './inbound';

/** A request of a session serving only the legacy era: nothing to classify. */
const LEGACY_REQUEST: LegacyInbound = Object.freeze({ era: 'legacy' });
import type { RequestTelemetry } from './telemetry/telemetry-options';

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
  /** A client notification the session does not handle itself (an extension's, a custom one). */
  notification?(method: string, params: Record<string, unknown>, peer: PeerState): void;
  /** Serves modern (2026-07-28) requests; absent when the server serves the legacy era only. */
  readonly modern?: ModernDispatch;
  /** Spans, metrics and trace context; absent when telemetry is off. */
  readonly telemetry?: RequestTelemetry;
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
  private era: Era | 'auto';
  private readonly inflight = new Map<RequestId, SessionScope>();
  private readonly outbound: ClientRequests;

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
    this.era = options.era ?? 'legacy';
    this.outbound = new ClientRequests(
      host.clientRequestTimeoutMs,
      (message, related) => this.emit(message, related),
      (params) => this.notify('notifications/cancelled', params),
    );
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
      this.handleNotification(message);
    }
  }

  handleRequest(request: JsonRpcRequest, extra: TransportExtra | undefined = this.defaultExtra): Promise<JsonRpcResponse | undefined> {
    const telemetry = this.host.telemetry;
    if (!telemetry) return this.serve(request, extra);
    const enveloped = (request.params?._meta as Record<string, unknown> | undefined)?.[MetaKey.protocolVersion];
    const protocolVersion = extra?.envelope?.protocolVersion ?? (typeof enveloped === 'string' ? enveloped : this.state.protocolVersion);
    // Named fields, not `...request`: spreading the parsed request cost ~4 µs a call (telemetry propagation bench).
    const traced = {
      id: request.id,
      method: request.method,
      params: request.params,
      headers: extra?.headers,
      protocolVersion,
      transport: extra?.headers ? 'tcp' : 'pipe',
      network: extra?.network,
    } as const;
    return telemetry.serve(traced, this, () => this.serve(request, extra));
  }

  private async serve(request: JsonRpcRequest, extra: TransportExtra | undefined): Promise<JsonRpcResponse | undefined> {
    const { id, method } = request;
    if (this.inflight.has(id))
      return errorResponse(id, ErrorCode.InvalidRequest, `Request id ${JSON.stringify(echo(id))} is already in use`);
    const modern = this.host.modern;
    // Over HTTP the transport classified the request already (its envelope travels in `extra`).
    const inbound = extra?.envelope
      ? { era: 'modern' as const, peer: extra.envelope }
      : modern
        ? classifyInbound(request, { support: modern.support, pinned: this.era })
        : LEGACY_REQUEST;
    if ('reject' in inbound) {
      const e = modern!.mapError(inbound.reject);
      return errorResponse(id, e.code, e.message, e.data);
    }
    if (inbound.pin) this.era = inbound.pin;
    let scope: SessionScope;
    let handler: MethodHandler;
    if (inbound.era === 'modern' && modern) {
      try {
        ({ scope, handler } = modern.prepare(request, (inbound as ModernInbound).peer, extra, this, this.ownerKey(extra)));
      } catch (error) {
        const e = modern.mapError(mcpErrorOf(error) ?? new McpError(ErrorCode.InternalError, 'Internal error'));
        return errorResponse(id, e.code, e.message, e.data);
      }
    } else {
      const found = this.host.handler(method);
      if (!found) return errorResponse(id, ErrorCode.MethodNotFound, `Method not found: ${echo(method)}`);
      if (this.requireInitialize && !this.initialized && method !== 'initialize' && method !== 'ping') {
        return errorResponse(id, ErrorCode.InvalidRequest, 'Server not initialized: send initialize first');
      }
      handler = found;
      scope = new SessionScope(id, method, request.params ?? {}, this, this.ownerKey(extra), extra);
    }
    this.inflight.set(id, scope);
    try {
      const result = inbound.era === 'modern' ? await modern!.run(handler, scope as ModernScope) : await handler(scope.params, scope);
      return scope.cancelled ? undefined : { jsonrpc: '2.0', id, result: result ?? {} };
    } catch (error) {
      if (scope.cancelled) return undefined;
      const mapped = mcpErrorOf(error);
      if (mapped) {
        const e = inbound.era === 'modern' ? modern!.mapError(mapped) : mapped;
        return errorResponse(id, e.code, e.message, e.data);
      }
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
        this.inflight
          .get(params.requestId as RequestId)
          ?.cancel(new McpError(ErrorCode.InvalidRequest, typeof params.reason === 'string' ? params.reason : 'Cancelled by the client'));
        break;
      default:
        this.host.notification?.(notification.method, params, this.state);
    }
  }

  private handleResponse(response: JsonRpcResponse): void {
    this.outbound.settle(response);
  }

  async notify(method: string, params: Record<string, unknown> | undefined, relatedRequestId?: RequestId): Promise<void> {
    if (this.closed) return;
    const message: JsonRpcNotification = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    await this.emit(message, relatedRequestId);
  }

  request(method: string, params: Record<string, unknown>, options: OutboundRequestOptions = {}): Promise<unknown> {
    if (this.closed) return Promise.reject(new McpError(ErrorCode.InternalError, 'Session closed'));
    const carried = this.host.telemetry ? this.host.telemetry.inject(this, options.relatedRequestId, params) : params;
    return this.outbound.send(method, carried, options);
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
    // Built only when someone waits: an Error's stack trace is most of the cost of closing a stateless session.
    if (this.inflight.size > 0 || this.outbound.size > 0) {
      const closed = new McpError(ErrorCode.InternalError, 'Session closed');
      for (const scope of this.inflight.values()) scope.cancel(closed);
      this.outbound.failAll(closed);
    }
    this.host.onSessionClosed?.(this);
  }

  awaits(id: RequestId): boolean {
    return this.outbound.awaits(id);
  }

  runs(id: RequestId): boolean {
    return this.inflight.has(id);
  }

  get inflightCount(): number {
    return this.inflight.size;
  }

  /** Who owns what a request creates: the authenticated caller's principal when there is one, else the session. */
  private ownerKey(extra?: TransportExtra): string {
    if (extra?.auth) return ownerOf(extra.auth);
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
