import type { AuthInfo, McpContext } from '../context/mcp-context';
import type { RequestId } from '../mcp/json-rpc';
import type { Outbound, OutboundRequestOptions, PeerState, SessionControl } from './peer';
import type { NetworkFacts } from '../observability/telemetry-options';

/** Per-request facts a transport knows (HTTP headers, authentication). */
export interface TransportExtra {
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  auth?: AuthInfo;
  /** Ends the HTTP connection carrying this request's stream; the client resumes it (SSE polling). */
  closeStream?: () => void;
  /**
   * The caller is the local user of a stdio or in-process connection that has no authentication
   * configured: the MCP spec leaves such connections to their environment, so per-handler
   * requirements (scopes, guards) are waived for it. Never set for HTTP.
   */
  local?: boolean;
  /** The HTTP connection the request came on (for telemetry). */
  network?: NetworkFacts;
  /** A per-request-era request's envelope, already read and checked by the transport (HTTP reads it with the headers). */
  envelope?: PeerState;
}

/**
 * What a protocol handler receives besides its params: the request's own facts, never a connection
 * object, so that one handler serves a session and a stateless request alike.
 */
export interface RequestScope {
  readonly id: RequestId;
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** The client as this request sees it. */
  readonly peer: PeerState;
  /** Messages to the client that sent this request. */
  readonly outbound: Outbound;
  /** Who owns what this request creates (tasks): the authenticated subject, else the session. */
  readonly owner: string;
  /** The session's lifecycle state, for the methods that change it (initialize, setLevel, subscribe). */
  readonly session?: SessionControl;
  /** Aborted when the client cancels the request or the session closes (created on first use). */
  readonly signal: AbortSignal;
  /** True once the request was cancelled; cheaper to read than `signal.aborted`. */
  readonly cancelled: boolean;
  /** Aborts the handler's signal without cancelling the request (a timeout): its answer still goes out. */
  abortHandler(reason: unknown): void;
  readonly extra: TransportExtra | undefined;
  /** Set when the request runs as a task: its requests to the client go through the task. */
  readonly task?: TaskBinding;
  /** The round of a per-request multi round-trip request (tools/call, prompts/get, resources/read). */
  readonly round?: { once<T>(key: string, compute: () => T | Promise<T>): Promise<T> };
  /** True once a 2026-07-28 handler asked the client for input not answered yet: its result is not the call's. */
  readonly needsInput?: boolean;
  /** Sets the caching hint of this request's result (per-request-era requests; resources with a `cache` option). */
  setCacheHint?(hint: { ttlMs: number; scope?: 'public' | 'private' }): void;
  /** The handler-facing context, built on first use. */
  context(): McpContext;
}

/** Ties a running handler to its task. */
export interface TaskBinding {
  readonly taskId: string;
  /**
   * Asks the client for something on the task's behalf: the task is `input_required` until the
   * answer comes, and the request travels on a `tasks/result` the client has open (now or later).
   */
  request(method: string, params: Record<string, unknown>, options: OutboundRequestOptions): Promise<unknown>;
}

/** Answers a method: with its result, or a promise of it (`unknown` covers both). */
export type MethodHandler = (params: Record<string, unknown>, scope: RequestScope) => unknown;
