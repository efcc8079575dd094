import { randomBytes } from 'node:crypto';
import {
  ErrorCode,
  errorResponse,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
  isRequest,
  isResponse,
} from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import type { LoggingLevel, ServerCapabilities } from '../mcp/mcp-types';
import { LATEST_PROTOCOL_VERSION } from '../mcp/mcp-types';
import type { Connection, ConnectionOptions, MessageSink, SessionSnapshot, SessionStateChange } from './connection';
import { type PeerState, type SessionControl, peerState } from './peer';
import type { TransportExtra } from './request-scope';
import type { InflightRequest, RequestSite } from './inflight-request';
import { ClientLink } from './client-link';
import type { Era } from '../mcp/eras';
import { echo } from './wire';
import { ownerOf } from '../auth/principal';
import { classifyInbound } from './inbound';
import { clientNotification, serveRequest, traced } from './request-core';
import type { EnginePort } from './engine-port';

/** The subscriptions of a session that has none (most): a server holds thousands of sessions. */
const NO_SUBSCRIPTIONS: ReadonlySet<string> = new Set();

/**
 * One client's protocol state: its PeerState, requests in flight and requests sent to the client.
 * Transport-agnostic: messages come in through `receive` or `handleRequest` and go out through the
 * sink. The only writer of its PeerState; handlers see it through their RequestScope. Each request
 * runs through the request core (see request-core), as a stateless request does.
 */
export class ServerSession extends ClientLink implements Connection, SessionControl, RequestSite {
  readonly id: string | undefined;
  initialized = false;
  /** What the client was told at initialize: list changes are sent only for these lists. */
  advertised: ServerCapabilities | undefined;
  onStateChange?: (change: SessionStateChange) => void;
  private state: PeerState;
  /** The owner key of requests from no authenticated caller (built once: it was a string per request). */
  private local?: string;
  private readonly requireInitialize: boolean;
  private readonly anonymousOwner: string | undefined;
  private readonly isReachable: () => boolean;
  private readonly defaultExtra: TransportExtra | undefined;
  private era: Era | 'auto';
  /**
   * Requests in flight, and the resource URIs the client subscribed to: each made when needed and the
   * requests' map dropped when it empties, since a held session that waits for its client (most of
   * them, most of the time) needs neither.
   */
  private inflight?: Map<RequestId, InflightRequest>;
  private subscribed?: Set<string>;

  constructor(
    protected override readonly host: EnginePort,
    sink: MessageSink,
    options: ConnectionOptions = {},
  ) {
    super(host, sink);
    this.id = options.id;
    this.requireInitialize = options.requireInitialize ?? true;
    this.anonymousOwner = options.anonymousOwner;
    this.isReachable = options.reachable ?? (() => true);
    this.defaultExtra = options.extra;
    this.era = options.era ?? 'handshake';
    this.state = peerState({ protocolVersion: LATEST_PROTOCOL_VERSION, clientCapabilities: {}, ...options.peer }, options.id);
  }

  /** Resource URIs this client subscribed to. */
  get subscriptions(): ReadonlySet<string> {
    return this.subscribed ?? NO_SUBSCRIPTIONS;
  }

  get peer(): PeerState {
    return this.state;
  }

  get reachable(): boolean {
    return !this.closed && this.isReachable();
  }

  /**
   * Handles any inbound message; a request's response goes to the sink. A notification is taken before
   * this returns its promise, and a request's handler has started by then: messages are taken in order.
   */
  async receive(message: JsonRpcMessage, extra: TransportExtra | undefined = this.defaultExtra): Promise<void> {
    if (isRequest(message)) {
      const response = await this.handleRequest(message, extra);
      if (response) await this.emit(response, message.id, true);
    } else if (isResponse(message)) this.settle(message);
    else this.handleNotification(message);
  }

  async deliver(message: JsonRpcMessage): Promise<void> {
    try {
      await this.receive(message);
    } catch (error) {
      this.host.logError('Could not serve a message', error);
    }
  }

  handleRequest(request: JsonRpcRequest, extra: TransportExtra | undefined = this.defaultExtra): Promise<JsonRpcResponse | undefined> {
    const telemetry = this.host.telemetry;
    return telemetry ? traced(telemetry, this, request, extra, () => this.serve(request, extra)) : this.serve(request, extra);
  }

  /** What a session adds to the request core: ids in use, the era it is pinned to, initialize first. */
  private async serve(request: JsonRpcRequest, extra: TransportExtra | undefined): Promise<JsonRpcResponse | undefined> {
    const id = request.id;
    if (this.inflight?.has(id)) return idInUse(id);
    const support = this.host.eras;
    // Over HTTP the transport classified the request already (its envelope travels in `extra`).
    const inbound = extra?.envelope
      ? { era: 'per-request' as const, peer: extra.envelope }
      : classifyInbound(request, { support, pinned: this.era });
    if ('reject' in inbound) {
      const e = this.host.perRequest!.mapError(inbound.reject);
      return errorResponse(id, e.code, e.message, e.data);
    }
    if (inbound.pin) this.era = inbound.pin;
    return serveRequest(this.host, this, request, extra, 'peer' in inbound ? inbound.peer : undefined);
  }

  admits(method: string): boolean {
    return !this.requireInitialize || this.initialized || method === 'initialize' || method === 'ping';
  }

  track(scope: InflightRequest): void {
    (this.inflight ??= new Map()).set(scope.id, scope);
  }

  untrack(scope: InflightRequest): void {
    if (this.inflight?.delete(scope.id) && this.inflight.size === 0) this.inflight = undefined;
  }

  private handleNotification(notification: JsonRpcNotification): void {
    const params = notification.params ?? {};
    switch (notification.method) {
      case 'notifications/initialized':
        this.initialized = true;
        break;
      case 'notifications/cancelled':
        this.inflight
          ?.get(params.requestId as RequestId)
          ?.cancel(new McpError(ErrorCode.InvalidRequest, typeof params.reason === 'string' ? params.reason : 'Cancelled by the client'));
        break;
      default:
        clientNotification(this.host, notification, this.state);
    }
  }

  initialize(peer: Omit<PeerState, 'sessionId'>, advertised: ServerCapabilities): void {
    this.setPeer(peerState(peer, this.id));
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
    this.setPeer(peerState(snapshot.peer, this.id));
    for (const uri of snapshot.subscriptions) this.addSubscription(uri);
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
    if (this.inflight || this.awaiting > 0) {
      const closed = new McpError(ErrorCode.InternalError, 'Session closed');
      for (const scope of this.inflight?.values() ?? []) scope.cancel(closed);
      this.failAwaiting(closed);
    }
    this.host.onSessionClosed?.(this);
  }

  runs(id: RequestId): boolean {
    return this.inflight?.has(id) ?? false;
  }

  get inflightCount(): number {
    return this.inflight?.size ?? 0;
  }

  /** Who owns what a request creates: the authenticated caller's principal when there is one, else the session. */
  ownerKey(extra?: TransportExtra): string {
    if (extra?.auth) return ownerOf(extra.auth);
    if (this.anonymousOwner) return this.anonymousOwner;
    // Sessions without an id (stdio, in-memory) get a random local one: tasks are scoped by it.
    this.local ??= `ses:${this.id ?? randomKey()}`;
    return this.local;
  }

  /** The one place the peer state changes. */
  private setPeer(peer: PeerState): void {
    this.state = peer;
  }

  private changeState(change: SessionStateChange, notify: boolean): void {
    if (change.logLevel !== undefined) this.setPeer(peerState(this.state, this.id, change.logLevel));
    if (change.subscribe !== undefined) this.addSubscription(change.subscribe);
    if (change.unsubscribe !== undefined && this.subscribed?.delete(change.unsubscribe) && this.subscribed.size === 0)
      this.subscribed = undefined;
    if (notify) this.onStateChange?.(change);
  }

  private addSubscription(uri: string): void {
    (this.subscribed ??= new Set()).add(uri);
  }
}

/** The answer to a request whose id another request of the session still holds. */
export function idInUse(id: RequestId): JsonRpcErrorResponse {
  return errorResponse(id, ErrorCode.InvalidRequest, `Request id ${JSON.stringify(echo(id))} is already in use`);
}

/** 12 random bytes, base64url. */
function randomKey(): string {
  return randomBytes(12).toString('base64url');
}
