import type { McpContext } from '../context/mcp-context';
import { RequestContext } from '../protocol/request-context';
import type { RequestId } from '../mcp/json-rpc';
import type { Outbound, PeerState } from '../protocol/peer';
import type { RequestScope, TaskBinding, TransportExtra } from '../protocol/request-scope';

/** The scope a task's handler runs in: the original request's, with the task's own lifetime and signal. */
export class TaskScope implements RequestScope {
  readonly id: RequestId;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly outbound: Outbound;
  readonly owner: string;
  readonly extra: TransportExtra | undefined;
  private ctx?: RequestContext;

  constructor(
    private readonly origin: RequestScope,
    private readonly controller: AbortController,
    readonly task: TaskBinding,
  ) {
    this.id = origin.id;
    this.method = origin.method;
    this.params = origin.params;
    this.outbound = origin.outbound;
    this.owner = origin.owner;
    // The original HTTP stream closes with the CreateTaskResult: closing it later means nothing.
    this.extra = origin.extra && { headers: origin.extra.headers, auth: origin.extra.auth };
  }

  get peer(): PeerState {
    return this.origin.peer;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cancelled(): boolean {
    return this.controller.signal.aborted;
  }

  context(): McpContext {
    this.ctx ??= new RequestContext(this);
    return this.ctx;
  }

  finish(): void {
    this.ctx?.finish();
  }
}
