import type { McpContext } from '../context/mcp-context';
import type { RequestId } from '../mcp/json-rpc';
import type { ServerSession } from './server-session';

/** Per-request facts a transport knows (HTTP headers, authentication). */
export interface TransportExtra {
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  auth?: import('../context/mcp-context').AuthInfo;
  /** Ends the HTTP connection carrying this request's stream; the client resumes it (SSE polling). */
  closeStream?: () => void;
}

/** What a protocol handler receives besides its params. Handlers never see a transport. */
export interface RequestScope {
  readonly id: RequestId;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly session: ServerSession;
  /** Aborted when the client cancels the request or the session closes (created on first use). */
  readonly signal: AbortSignal;
  /** True once the request was cancelled; cheaper to read than `signal.aborted`. */
  readonly cancelled: boolean;
  readonly extra: TransportExtra | undefined;
  /** Set when the request runs as a task: what the context needs to keep the task's status right. */
  readonly task?: TaskBinding;
  /** The handler-facing context, built on first use. */
  context(): McpContext;
}

/** Ties a running handler to its task. */
export interface TaskBinding {
  readonly taskId: string;
  /** A request waiting on the task (a blocking tasks/result), to carry the task's messages; else none. */
  route(): RequestId | undefined;
  /** The handler asks the client for something: the task is `input_required` until it is answered. */
  inputRequired(): Promise<void>;
  inputReceived(): Promise<void>;
}

export type MethodHandler = (params: Record<string, unknown>, scope: RequestScope) => Promise<unknown> | unknown;
