import type { McpContext } from '../context/mcp-context';
import { RequestContext } from './request-context';
import type { RequestId } from '../mcp/json-rpc';
import type { Outbound, PeerState, SessionControl } from './peer';
import type { TracedSession } from '../observability/telemetry-options';
import type { RequestScope, TransportExtra } from './request-scope';

/**
 * Where a request runs: a session, or a stateless request's own link to its client. Its scope reads
 * the peer and writes through it; the site keeps the scope while it runs, to cancel it.
 */
export interface RequestSite extends Outbound, SessionControl, TracedSession {
  readonly peer: PeerState;
  /** Who owns what the request creates (tasks). */
  ownerKey(extra: TransportExtra | undefined): string;
  /** False when the site refuses this 2025-era method now (a session before its initialize). */
  admits(method: string): boolean;
  /** The request's scope from when its handler starts until it is answered. */
  track(scope: InflightRequest): void;
  untrack(scope: InflightRequest): void;
}

/**
 * One request in flight, in a session or not: the RequestScope its handler gets. Its AbortSignal is created only when a handler asks for it:
 * most requests never look, and an AbortController per request is a measurable share of a small
 * request's cost.
 */
export class InflightRequest implements RequestScope {
  private ctx?: RequestContext;
  private controller?: AbortController;
  cancelled = false;
  private reason: unknown;
  private aborted = false;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly params: Record<string, unknown>,
    readonly session: RequestSite,
    /** Undefined: asked of the session when first read (see `owner`). */
    private ownerKey: string | undefined,
    readonly extra: TransportExtra | undefined,
  ) {}

  /**
   * Who owns what the request creates. Asked of the session when something first needs it (tasks):
   * most requests never do, and a session without an id makes its key from random bytes.
   */
  get owner(): string {
    this.ownerKey ??= this.session.ownerKey(this.extra);
    return this.ownerKey;
  }

  /** Read live: `logging/setLevel` applies to requests already running. */
  get peer(): PeerState {
    return this.session.peer;
  }

  get outbound(): Outbound {
    return this.session;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.abortSignal(reason);
  }

  abortHandler(reason: unknown): void {
    this.abortSignal(reason);
  }

  /** Aborts the handler's signal without marking the request cancelled (its answer still goes out). */
  protected abortSignal(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
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
