import type { EraSupport } from '../mcp/eras';
import type { ServerCapabilities } from '../mcp/mcp-types';
import type { RequestTelemetry } from '../observability/telemetry-options';
import type { RequestSite } from './inflight-request';
import type { PeerState } from './peer';
import type { PerRequestDispatch } from './per-request/per-request-dispatch';
import type { MethodHandler } from './request-scope';

/**
 * The engine as the places a request runs in see it: a session (`ServerSession`), a stateless request
 * (`StatelessRequest`), the request core between them and the link back to the client. One port,
 * which `ProtocolEngine` implements; a test may give a session a small engine of its own.
 */
export interface EnginePort {
  /** How long a request to the client (sampling, elicitation, roots) waits for its answer. */
  readonly clientRequestTimeoutMs: number;
  logError(message: string, error?: unknown): void;
  /** Spans, metrics and trace context; absent when telemetry is off. */
  readonly telemetry?: RequestTelemetry;
  /** The capabilities offered now (a restored replica counts as told about them). */
  readonly capabilities: ServerCapabilities;
  /** The eras served: the per-request dispatch (`perRequest`) is asked for only when a request belongs to 2026-07-28. */
  readonly eras: EraSupport;
  /** The handler of a method the server offers now, if any. */
  handler(method: string): MethodHandler | undefined;
  /** Serves per-request (2026-07-28) requests; absent when the server serves the handshake era only. */
  readonly perRequest?: PerRequestDispatch;
  rootsListChanged?(peer: PeerState): void;
  /** A client notification the core does not handle itself (an extension's, a custom one). */
  notification?(method: string, params: Record<string, unknown>, peer: PeerState): void;
  /** A session (a ServerSession) closed: the engine forgets it. */
  onSessionClosed?(session: RequestSite): void;
  /** A stateless request (a StatelessRequest) was closed: the engine forgets it. */
  statelessClosed?(request: RequestSite): void;
}
