import { ErrorCode, type JsonRpcResponse } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import type { LoggingLevel, ServerCapabilities } from '../mcp/mcp-types';
import { ownerOf } from '../auth/principal';
import { ClientLink } from './client-link';
import type { EnginePort } from './engine-port';
import { ANONYMOUS_OWNER, type MessageSink } from './connection';
import type { PeerState } from './peer';
import type { InflightRequest, RequestSite } from './inflight-request';
import type { TransportExtra } from './request-scope';

/**
 * One request served with no session (a 2026-07-28 request; a 2025-11-25 one over HTTP without
 * sessions): its peer state, the scope of its handler while it runs, and its way back to the client,
 * which carries its own notifications and requests only (nothing else reaches that client). It is
 * closed by whoever serves it, once answered or when its client left; closing cancels the handler
 * still running and fails its requests to the client.
 */
export class StatelessRequest extends ClientLink implements RequestSite {
  readonly id = undefined;
  /** True after a stateless `initialize` (which fixes nothing beyond this request). */
  initialized = false;
  /** The response: undefined when the request was cancelled (set by the engine when it starts serving). */
  response!: Promise<JsonRpcResponse | undefined>;
  private scope?: InflightRequest;

  constructor(
    protected override readonly host: EnginePort,
    sink: MessageSink,
    private state: PeerState,
  ) {
    super(host, sink);
  }

  get peer(): PeerState {
    return this.state;
  }

  get reachable(): boolean {
    return false;
  }

  /** True while its handler runs. */
  get running(): boolean {
    return this.scope !== undefined;
  }

  /** The authenticated caller's principal, else the anonymous owner: task ids then act as capabilities. */
  ownerKey(extra: TransportExtra | undefined): string {
    return extra?.auth ? ownerOf(extra.auth) : ANONYMOUS_OWNER;
  }

  admits(): boolean {
    return true;
  }

  track(scope: InflightRequest): void {
    this.scope = scope;
  }

  untrack(scope: InflightRequest): void {
    if (this.scope === scope) this.scope = undefined;
  }

  initialize(peer: Omit<PeerState, 'sessionId'>, _advertised: ServerCapabilities): void {
    this.state = { ...peer, sessionId: undefined };
    this.initialized = true;
  }

  setLogLevel(level: LoggingLevel): void {
    this.state = { ...this.state, logLevel: level };
  }

  /** Nothing outlives a stateless request: no later message could tell this client of the change. */
  subscribe(): void {}

  unsubscribe(): void {}

  close(): void {
    if (this.closed) return;
    this.closed = true;
    // Built only when someone waits: an Error's stack trace would be most of the cost of closing.
    if (this.scope || this.awaiting > 0) {
      const closed = new McpError(ErrorCode.InternalError, 'Session closed');
      this.scope?.cancel(closed);
      this.failAwaiting(closed);
    }
    this.host.statelessClosed?.(this);
  }
}
