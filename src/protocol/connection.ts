import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse, RequestId } from '../mcp/json-rpc';
import type { LoggingLevel } from '../mcp/mcp-types';
import type { Era } from '../mcp/eras';
import type { PeerState } from './peer';
import type { TransportExtra } from './request-scope';

/**
 * Where a connection's outbound messages go. `relatedRequestId` names the request they belong to;
 * `final` is false on a result that answers a request before its last response (streamed results),
 * so a transport keeps that request's stream open.
 */
export type MessageSink = (message: JsonRpcMessage, relatedRequestId?: RequestId, final?: boolean) => void | Promise<void>;

/** A change of the state a session keeps for its client. */
export interface SessionStateChange {
  logLevel?: LoggingLevel;
  subscribe?: string;
  unsubscribe?: string;
}

/** What a session shares with other instances, and takes back when one of them restores it. */
export interface SessionSnapshot {
  peer: PeerState;
  subscriptions: string[];
}

export interface ConnectionOptions {
  id?: string;
  /** Refuse requests other than initialize and ping until initialize succeeded (default true). */
  requireInitialize?: boolean;
  /**
   * Owner of what an unauthenticated client creates when the connection is not a lasting one
   * (stateless HTTP): task ids then act as capabilities, and such tasks are never listed.
   */
  anonymousOwner?: string;
  /** The peer state of a connection that has no initialize (stateless HTTP: from its headers). */
  peer?: Partial<PeerState>;
  /** Whether a message that belongs to no request reaches the client now (default: always). */
  reachable?: () => boolean;
  /**
   * The era this connection serves: 'handshake' (initialize and a session; the default), 'per-request'
   * (every request stateless, with its own `_meta`), or 'auto' (stdio: the first initialize or per-request-era request decides).
   */
  era?: Era | 'auto';
  /** Facts of every message that arrives without its own (a stdio connection's local user, or its verified auth). */
  extra?: TransportExtra;
}

/** The owner of tasks created by unauthenticated stateless requests. */
export const ANONYMOUS_OWNER = 'anonymous';

/**
 * A transport's handle on one client's protocol state. Transports feed it messages and close it;
 * handlers never see it (they get a RequestScope).
 */
export interface Connection {
  readonly id: string | undefined;
  readonly closed: boolean;
  readonly initialized: boolean;
  readonly peer: PeerState;
  /** Requests from the client running now. */
  readonly inflightCount: number;
  /** Handles any inbound message; responses to requests go to the sink. */
  receive(message: JsonRpcMessage, extra?: TransportExtra): Promise<void>;
  /**
   * `receive` for a message transport (stdio, in-process), with the connection's own facts: resolves
   * once the message was served, and never rejects (a failure is logged).
   */
  deliver(message: JsonRpcMessage): Promise<void>;
  /** Runs one request; resolves to its response, or undefined when the client cancelled it. */
  handleRequest(request: JsonRpcRequest, extra?: TransportExtra): Promise<JsonRpcResponse | undefined>;
  /** True while a request with this id, sent to the client, waits for its answer here. */
  awaits(id: RequestId): boolean;
  /** True while a request with this id from the client runs here. */
  runs(id: RequestId): boolean;
  /** What another instance needs to serve this session. */
  snapshot(): SessionSnapshot;
  /** Takes the state of a session created elsewhere (it counts as initialized). */
  restore(snapshot: SessionSnapshot): void;
  /** Applies a change made on another instance, without telling `onStateChange`. */
  applyRemoteChange(change: SessionStateChange): void;
  /** Told when the log level or subscriptions change (a transport that shares sessions saves them). */
  onStateChange?: (change: SessionStateChange) => void;
  /** Aborts requests in flight, fails requests sent to the client, and stops sending. */
  close(): void;
}
