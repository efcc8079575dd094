import { ErrorCode, errorResponse, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from '../mcp/json-rpc';
import { McpError, mcpErrorOf } from '../mcp/mcp.error';
import { MetaKey } from '../mcp/eras';
import type { EnginePort } from './engine-port';
import type { PerRequestDispatch } from './per-request/per-request-dispatch';
import type { PerRequestScope } from './per-request/per-request-scope';
import type { PeerState } from './peer';
import type { MethodHandler, TransportExtra } from './request-scope';
import { InflightRequest, type RequestSite } from './inflight-request';
import type { NetworkFacts, RequestTelemetry, TracedRequest } from '../observability/telemetry-options';
import { echo } from './wire';

/*
 * The request core: what happens to one request between its classification and its response,
 * the same for a request of a session and a stateless one (2026-07-28 requests, and 2025-11-25 ones
 * over HTTP without sessions). Its telemetry span, routing, the per-request era's dispatch (multi
 * round-trip, tasks through the features' handlers), the handler's scope (authorization, middleware
 * and cancellation are the handlers' and the scope's business) and the mapping of errors live here
 * once; a session adds only what a session has (ids in use, era pinning, initialize first).
 */

/** Runs `serve` in the request's server span (full) or remote trace context (propagation). */
export function traced(
  telemetry: RequestTelemetry,
  site: RequestSite,
  request: JsonRpcRequest,
  extra: TransportExtra | undefined,
  serve: () => Promise<JsonRpcResponse | undefined>,
): Promise<JsonRpcResponse | undefined> {
  const enveloped = (request.params?._meta as Record<string, unknown> | undefined)?.[MetaKey.protocolVersion];
  const protocolVersion = extra?.envelope?.protocolVersion ?? (typeof enveloped === 'string' ? enveloped : site.peer.protocolVersion);
  return telemetry.serve(new TracedCall(request, extra, protocolVersion), site, serve);
}

/**
 * A request as telemetry sees it. Named fields, not `...request`: spreading the parsed request cost ~4 µs
 * a call (telemetry propagation bench). A class, so that `network` is read only when asked (a recording
 * span's attributes): over HTTP the peer's address and port are getters of the socket, ~1.4 µs a request
 * that telemetry with no OpenTelemetry SDK paid for nothing (profiled under load).
 */
class TracedCall implements TracedRequest {
  readonly id: string | number;
  readonly method: string;
  readonly params?: Record<string, unknown>;
  readonly headers?: TracedRequest['headers'];
  readonly transport: 'tcp' | 'pipe';

  constructor(
    request: JsonRpcRequest,
    private readonly extra: TransportExtra | undefined,
    readonly protocolVersion: string | undefined,
  ) {
    this.id = request.id;
    this.method = request.method;
    this.params = request.params;
    this.headers = extra?.headers;
    this.transport = extra?.headers ? 'tcp' : 'pipe';
  }

  get network(): NetworkFacts | undefined {
    return this.extra?.network;
  }
}

/**
 * Builds the request's scope on `site` and runs its handler: its response, or undefined when the
 * request was cancelled. The handler starts before the first await, so requests start in the order
 * they arrive. Never rejects: a handler's fault is its response (-32603, logged).
 */
export async function serveRequest(
  host: EnginePort,
  site: RequestSite,
  request: JsonRpcRequest,
  extra: TransportExtra | undefined,
  /** A 2026-07-28 request's envelope, read and checked (by the classifier); undefined for a 2025-era request. */
  envelope: PeerState | undefined,
): Promise<JsonRpcResponse | undefined> {
  const { id, method } = request;
  const perRequest = envelope ? host.perRequest : undefined;
  let scope: InflightRequest;
  let handler: MethodHandler;
  if (perRequest && envelope) {
    try {
      ({ scope, handler } = perRequest.prepare(request, envelope, extra, site, site.ownerKey(extra)));
    } catch (error) {
      const e = perRequest.mapError(mcpErrorOf(error) ?? new McpError(ErrorCode.InternalError, 'Internal error'));
      return errorResponse(id, e.code, e.message, e.data);
    }
  } else {
    const found = host.handler(method);
    if (!found) return errorResponse(id, ErrorCode.MethodNotFound, `Method not found: ${echo(method)}`);
    if (!site.admits(method)) return errorResponse(id, ErrorCode.InvalidRequest, 'Server not initialized: send initialize first');
    handler = found;
    scope = new InflightRequest(id, method, request.params ?? {}, site, undefined, extra);
  }
  site.track(scope);
  try {
    const result: unknown = await (perRequest ? perRequest.run(handler, scope as PerRequestScope) : handler(scope.params, scope));
    return settled(site, scope, answered(scope, result));
  } catch (error) {
    return settled(site, scope, failed(host, scope, perRequest, error));
  }
}

/** The response of a request whose handler returned `result`. */
function answered(scope: InflightRequest, result: unknown): JsonRpcResponse | undefined {
  return scope.cancelled ? undefined : { jsonrpc: '2.0', id: scope.id, result: result ?? {} };
}

/** The response of a request whose handler failed. */
function failed(
  host: EnginePort,
  scope: InflightRequest,
  perRequest: PerRequestDispatch | undefined,
  error: unknown,
): JsonRpcResponse | undefined {
  if (scope.cancelled) return undefined;
  const mapped = mcpErrorOf(error);
  if (mapped) {
    const e = perRequest ? perRequest.mapError(mapped) : mapped;
    return errorResponse(scope.id, e.code, e.message, e.data);
  }
  host.logError(`Unhandled error in ${scope.method}`, error);
  return errorResponse(scope.id, ErrorCode.InternalError, 'Internal error');
}

/** The request is over: its site lets go of its scope, and later progress from its handler is dropped. */
function settled(site: RequestSite, scope: InflightRequest, response: JsonRpcResponse | undefined): JsonRpcResponse | undefined {
  site.untrack(scope);
  scope.finish();
  return response;
}

/**
 * A client notification beyond a session's own (`initialized`, `cancelled`): roots changed, or one
 * the application listens to (an extension's, a custom one).
 */
export function clientNotification(host: EnginePort, notification: JsonRpcNotification, peer: PeerState): void {
  if (notification.method === 'notifications/roots/list_changed') host.rootsListChanged?.(peer);
  else host.notification?.(notification.method, notification.params ?? {}, peer);
}
