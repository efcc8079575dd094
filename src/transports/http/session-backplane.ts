import type { JsonRpcMessage } from '../../mcp/json-rpc';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../../mcp/mcp-types';
import type { SessionStateChange } from '../../protocol/connection';
import type { ChangeEvent } from '../../protocol/per-request/subscriptions';
import type { TaskBusMessage } from '../../tasks/task-bus';

/** What a session needs to be served by any instance. */
export interface SharedSessionState {
  protocolVersion: string;
  clientInfo?: Implementation;
  clientCapabilities: ClientCapabilities;
  logLevel?: LoggingLevel;
  subscriptions: string[];
  /** The principal that created the session, when requests are authenticated. */
  owner?: string;
}

/** Messages between the instances serving one session. */
export type SessionEnvelope =
  /** A client message (a response to a server request, a cancellation) for whichever instance waits for it. */
  | { kind: 'inbound'; message: JsonRpcMessage; from: string }
  /** A server message for the client's stream `streamId`, already stored under `eventId`. */
  | { kind: 'event'; streamId: string; eventId?: string; message: JsonRpcMessage; final?: boolean; from: string }
  /** The session's shared state changed (log level, subscriptions). */
  | { kind: 'state'; change: SessionStateChange; from: string }
  /** The session was terminated (DELETE, expiry). */
  | { kind: 'terminate'; from: string }
  /** On a task's channel (not a session's): what the instances serving the task tell each other. */
  | { kind: 'task'; message: TaskBusMessage; from: string }
  /** On the deployment's change channel: a resource update or list change for the listen streams of every instance. */
  | { kind: 'change'; event: ChangeEvent; from: string };

/**
 * Shares sessions between the instances of a deployment: their state, and a channel per session
 * that carries what one instance must hand to another. mcpkit ships RedisSessionBackplane.
 */
export interface SessionBackplane {
  save(sessionId: string, state: SharedSessionState, ttlMs: number): Promise<void>;
  load(sessionId: string, ttlMs: number): Promise<SharedSessionState | undefined>;
  update(sessionId: string, patch: Partial<SharedSessionState>, ttlMs: number): Promise<void>;
  delete(sessionId: string): Promise<void>;
  publish(sessionId: string, envelope: SessionEnvelope): Promise<void>;
  /** Listens to a session's channel; resolves once listening, with the function that stops it. */
  subscribe(sessionId: string, listener: (envelope: SessionEnvelope) => void): Promise<() => Promise<void>>;
  /** Resolves when the store can serve (readiness endpoint); rejects with why not. Absent: always ready. */
  ready?(): Promise<void>;
  close(): Promise<void>;
}
