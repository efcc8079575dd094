import type { JsonRpcMessage, JsonRpcNotification, JsonRpcResponse, RequestId } from '../mcp/json-rpc';
import { ErrorCode } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import { ClientRequests } from './client-requests';
import type { MessageSink } from './connection';
import type { EnginePort } from './engine-port';
import type { Outbound, OutboundRequestOptions } from './peer';

/**
 * The way back to one client, written to a sink: notifications, intermediate results, and requests
 * (their ids, timeouts and answers). A session and a stateless request alike: each is one of these,
 * and is the key its requests' trace context is kept under. Once closed, nothing more is sent.
 */
export abstract class ClientLink implements Outbound {
  /** The session id, when the link is a session that has one. */
  abstract readonly id: string | undefined;
  closed = false;
  /** The requests sent to the client: built on first use (most links never send one). */
  private sent?: ClientRequests;

  constructor(
    protected readonly host: EnginePort,
    private readonly sink: MessageSink,
  ) {}

  /** True when a message that belongs to no request reaches the client now. */
  abstract get reachable(): boolean;

  async notify(method: string, params: Record<string, unknown> | undefined, relatedRequestId?: RequestId): Promise<void> {
    if (this.closed) return;
    const message: JsonRpcNotification = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    await this.emit(message, relatedRequestId);
  }

  request(method: string, params: Record<string, unknown>, options: OutboundRequestOptions = {}): Promise<unknown> {
    if (this.closed) return Promise.reject(new McpError(ErrorCode.InternalError, 'Session closed'));
    const carried = this.host.telemetry ? this.host.telemetry.inject(this, options.relatedRequestId, params) : params;
    this.sent ??= new ClientRequests(
      this.host.clientRequestTimeoutMs,
      async (message, related) => this.emit(message, related),
      (cancel) => this.notify('notifications/cancelled', cancel),
    );
    return this.sent.send(method, carried, options);
  }

  async sendIntermediateResult(id: RequestId, result: unknown): Promise<void> {
    if (this.closed) return;
    await this.emit({ jsonrpc: '2.0', id, result }, id, false);
  }

  /** True while a request with this id, sent to the client, waits for its answer here. */
  awaits(id: RequestId): boolean {
    return this.sent?.awaits(id) ?? false;
  }

  /** Settles the request a client's response answers (an unknown id is ignored). */
  protected settle(response: JsonRpcResponse): void {
    this.sent?.settle(response);
  }

  /** Requests sent to the client that wait for their answer. */
  protected get awaiting(): number {
    return this.sent?.size ?? 0;
  }

  /** Fails every request sent to the client that still waits (the link closes). */
  protected failAwaiting(error: McpError): void {
    this.sent?.failAll(error);
  }

  /**
   * Hands a message to the sink (at once: messages reach it in the order they are emitted); a failure
   * to send is logged, never thrown.
   */
  protected async emit(message: JsonRpcMessage, relatedRequestId?: RequestId, final?: boolean): Promise<void> {
    try {
      await this.sink(message, relatedRequestId, final);
    } catch (error) {
      this.host.logError('Failed to send a message', error);
    }
  }
}
