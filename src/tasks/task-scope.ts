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
  /** The handler's signal: the task's cancellation, or an abort of the handler alone (a timeout). */
  private handler?: AbortController;

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
    // The client's address is read now, while the request's connection is there (call policies key on it).
    this.extra = origin.extra && { headers: origin.extra.headers, auth: origin.extra.auth, network: origin.extra.network };
  }

  get peer(): PeerState {
    return this.origin.peer;
  }

  get signal(): AbortSignal {
    return this.handlerController().signal;
  }

  get cancelled(): boolean {
    return this.controller.signal.aborted;
  }

  abortHandler(reason: unknown): void {
    this.handlerController().abort(reason);
  }

  /** Made on first use, and aborted with the task: the handler's signal without its power to cancel the task. */
  private handlerController(): AbortController {
    if (!this.handler) {
      const handler = (this.handler = new AbortController());
      const task = this.controller.signal;
      if (task.aborted) handler.abort(task.reason);
      else task.addEventListener('abort', () => handler.abort(task.reason), { once: true });
    }
    return this.handler;
  }

  context(): McpContext {
    this.ctx ??= new RequestContext(this);
    return this.ctx;
  }

  finish(): void {
    this.ctx?.finish();
  }
}
