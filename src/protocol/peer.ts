import type { RequestId } from '../mcp/json-rpc';
import type { ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities } from '../mcp/mcp-types';
import { LOGGING_LEVELS } from '../mcp/mcp-types';

/**
 * What a request knows about its client. A 2025-era session fixes it at `initialize` (the log level
 * changes with `logging/setLevel`); a stateless request brings its own. Immutable: a change makes a
 * new one.
 */
export interface PeerState {
  readonly protocolVersion: string;
  readonly clientInfo?: Implementation;
  readonly clientCapabilities: ClientCapabilities;
  readonly logLevel?: LoggingLevel;
  /** The session id, when the client has one (Streamable HTTP with sessions). */
  readonly sessionId?: string;
  /** A per-request (2026-07-28) request: it brought this state in its own `_meta`. */
  readonly perRequest?: boolean;
}

/**
 * A PeerState with a session id (and a log level) of its own, built field by field: in V8, an object
 * made by spreading another and adding a property gets a hidden class of its own, about 200 bytes
 * more for every session that holds one (and the time to make that class).
 */
export function peerState(peer: PeerState, sessionId: string | undefined, logLevel = peer.logLevel): PeerState {
  return {
    protocolVersion: peer.protocolVersion,
    clientInfo: peer.clientInfo,
    clientCapabilities: peer.clientCapabilities,
    logLevel,
    sessionId,
    perRequest: peer.perRequest,
  };
}

/** True when a log message at `level` passes the client's chosen minimum. */
export function passesLogLevel(peer: PeerState, level: LoggingLevel): boolean {
  // A per-request-era request that names no log level gets no log messages at all.
  if (peer.logLevel === undefined) return !peer.perRequest;
  return LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(peer.logLevel);
}

/** Options of a request sent to the client. */
export interface OutboundRequestOptions {
  /** The client request this one belongs to (its stream carries it). */
  relatedRequestId?: RequestId;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The key of this request in a 2026-07-28 InputRequiredResult (see ClientRequestOptions.key). */
  key?: string;
  /** Asked before a 2026-07-28 task is created, by multi round-trip (see ClientRequestOptions.beforeTask). */
  beforeTask?: boolean;
}

/** The way back to the client that sent a request: notifications, requests, and intermediate results. */
export interface Outbound {
  /** Sends a notification, on the stream of `relatedRequestId` when given. */
  notify(method: string, params: Record<string, unknown> | undefined, relatedRequestId?: RequestId): Promise<void>;
  /** Sends a request to the client and resolves with its result. */
  request(method: string, params: Record<string, unknown>, options?: OutboundRequestOptions): Promise<unknown>;
  /**
   * Sends a result for request `id` before its final response (streamed task results answer one
   * request several times). The transport keeps the request's stream open after it.
   */
  sendIntermediateResult(id: RequestId, result: unknown): Promise<void>;
  /**
   * True when a message that belongs to no request reaches the client now (stdio, or an HTTP session
   * with its standalone stream open).
   */
  readonly reachable: boolean;
}

/** The session-level state only the 2025-era lifecycle methods change. */
export interface SessionControl {
  readonly initialized: boolean;
  /** Fixes the peer state at `initialize`, with the capabilities the server advertised to it. */
  initialize(peer: Omit<PeerState, 'sessionId'>, advertised: ServerCapabilities): void;
  setLogLevel(level: LoggingLevel): void;
  subscribe(uri: string): void;
  unsubscribe(uri: string): void;
}
