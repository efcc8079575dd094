import type { RequestId } from '../../mcp/json-rpc';
import { McpError } from '../../mcp/mcp.error';
import type { Outbound, OutboundRequestOptions, PeerState } from '../peer';
import type { TransportExtra } from '../request-scope';
import { InflightRequest, type RequestSite } from '../inflight-request';
import type { InputRound } from './input-round';
import type { CacheHint } from '../../contracts/cache-hints';

/** A request's arguments as they arrived: a copy of an object of scalars, else their JSON text. */
export type ArgsSnapshot = string | Readonly<Record<string, string | number | boolean | null>>;

/**
 * A per-request (2026-07-28) request: its PeerState comes from its own `_meta`, its notifications go on its
 * own response stream, and its requests to the client are input requests of its InputRound (MRTR).
 */
export class PerRequestScope extends InflightRequest implements Outbound {
  /** The caching hint of what this request read (a resource's own), when it has one. */
  cacheHint?: CacheHint;

  constructor(
    id: RequestId,
    method: string,
    params: Record<string, unknown>,
    session: RequestSite,
    owner: string,
    extra: TransportExtra | undefined,
    private readonly requestPeer: PeerState,
    /**
     * Set on the methods that may answer with an InputRequiredResult: builds their round on first use
     * (the dispatch's, which holds the sealer).
     */
    private readonly roundOf: ((scope: PerRequestScope) => InputRound) | undefined,
    /** The arguments when the request arrived (what a round's requestState is bound to). */
    readonly args: ArgsSnapshot | undefined,
  ) {
    super(id, method, params, session, owner, extra);
  }

  private built?: InputRound;

  /** True on the methods that may answer with an InputRequiredResult (tools/call, prompts/get, resources/read). */
  get multiRound(): boolean {
    return this.roundOf !== undefined;
  }

  /** The request's round, built when first needed (most runs never ask the client for anything). */
  get round(): InputRound | undefined {
    if (!this.built && this.roundOf) this.built = this.roundOf(this);
    return this.built;
  }

  /** True once the handler asked the client for something unanswered. */
  get needsInput(): boolean {
    return this.built !== undefined && this.built.needsInput;
  }

  setCacheHint(hint: CacheHint): void {
    this.cacheHint = hint;
  }

  override get peer(): PeerState {
    return this.requestPeer;
  }

  override get outbound(): Outbound {
    return this;
  }

  get reachable(): boolean {
    return false;
  }

  /** Request-scoped notifications (progress, log messages) travel on this request's stream only. */
  notify(method: string, params: Record<string, unknown> | undefined): Promise<void> {
    if (this.cancelled) return Promise.resolve();
    return this.session.notify(method, params, this.id);
  }

  request(method: string, params: Record<string, unknown>, options?: OutboundRequestOptions): Promise<unknown> {
    if (!this.round)
      return Promise.reject(
        new McpError(-32603, `A ${this.method} handler cannot ask the client for input (${method}) in the 2026-07-28 era`),
      );
    return this.round.request(method, params, options?.key);
  }

  sendIntermediateResult(): Promise<void> {
    return Promise.reject(new McpError(-32603, 'Streamed results do not exist in the 2026-07-28 era'));
  }

  /** Ends the run for an InputRequiredResult: the handler's signal aborts, but the request is not cancelled. */
  abandon(): void {
    this.abortSignal(new McpError(-32603, 'The request needs input from the client; it will be retried'));
  }
}
