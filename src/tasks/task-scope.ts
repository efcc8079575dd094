import type { McpContext } from '../context/mcp-context';
import { RequestContext } from '../context/request-context';
import type { RequestId } from '../mcp/json-rpc';
import type { RequestScope, TaskBinding, TransportExtra } from '../protocol/request-scope';
import type { ServerSession } from '../protocol/server-session';

/** The scope a task's handler runs in: the original request's, with the task's own lifetime and signal. */
export class TaskScope implements RequestScope {
  readonly id: RequestId;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly session: ServerSession;
  readonly extra: TransportExtra | undefined;
  private ctx?: RequestContext;

  constructor(
    origin: RequestScope,
    private readonly controller: AbortController,
    readonly task: TaskBinding,
  ) {
    this.id = origin.id;
    this.method = origin.method;
    this.params = origin.params;
    this.session = origin.session;
    // The original HTTP stream closes with the CreateTaskResult: closing it later means nothing.
    this.extra = origin.extra && { headers: origin.extra.headers, auth: origin.extra.auth };
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
