import type { McpContext } from '../context/mcp-context';
import type { RequestId } from './json-rpc';
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
  /** The handler-facing context, built on first use. */
  context(): McpContext;
}

export type MethodHandler = (params: Record<string, unknown>, scope: RequestScope) => Promise<unknown> | unknown;
