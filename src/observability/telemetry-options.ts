/**
 * OpenTelemetry for an application. `@opentelemetry/api` is an optional peer dependency: it is
 * loaded only when `mode` is not 'off'.
 * - 'full': one server span per request (MCP semantic conventions), child spans, metrics;
 * - 'propagation': no spans nor metrics, but trace context from `_meta` or HTTP headers is passed on
 *   into requests sent to the client;
 * - 'off' (default): nothing is loaded.
 */
export interface TelemetryOptions {
  mode?: 'full' | 'propagation' | 'off';
  /** A `TracerProvider` of @opentelemetry/api; default: the global one. */
  tracerProvider?: object;
  /** A `MeterProvider` of @opentelemetry/api; default: the global one. */
  meterProvider?: object;
  /**
   * mcpkit's own child spans, beyond those of the MCP semantic conventions ('full' only). `validation`:
   * a `validate_arguments {tool}` span around each tool call's argument validation (default false: it
   * costs a span per call, and the validation's time is inside the server span anyway).
   */
  spans?: { validation?: boolean };
}

/** What a session needs from telemetry (absent when it is off: the hot path checks one property). */
export interface RequestTelemetry {
  /** True when spans and metrics are recorded ('full'); in 'propagation' stores are not wrapped at all. */
  readonly recording: boolean;
  /** True when tool argument validation gets a child span (`spans.validation` in 'full'). */
  readonly validationSpans: boolean;
  /** Runs one request inside its server span (full) or its remote trace context (propagation). */
  serve<T>(request: TracedRequest, session: TracedSession, run: () => Promise<T>): Promise<T>;
  /** `params` with the trace context of client request `relatedId` in `_meta` (traceparent, tracestate, baggage). */
  inject(session: TracedSession, relatedId: string | number | undefined, params: Record<string, unknown>): Record<string, unknown>;
  /**
   * Runs `work` in a child span (mcpkit's own work: argument validation) of request `id`, found by
   * the session that serves it (`owner`), else of the active context. A span that ends with
   * `failed(result)` true gets error.type `errorType`.
   */
  child<T>(
    owner: object,
    id: string | number,
    name: string,
    attributes: Record<string, string>,
    work: () => Promise<T>,
    failed?: (result: T) => string | undefined,
  ): Promise<T>;
  /**
   * A count read at each collection (full only): `mcpkit.server.listen.active` and the like; `read`
   * returns one value, or one value per attribute set (tasks by status).
   */
  gauge(name: string, unit: string, description: string, read: () => number | ReadonlyArray<GaugePoint>): void;
  sessionOpened(session: TracedSession): void;
  sessionClosed(session: TracedSession): void;
  /**
   * A call policy refused a call, served it from a store or let it through unguarded (full only): a
   * `mcpkit.policy` event on the active span and a count of `mcpkit.server.policy.outcomes`.
   */
  policyOutcome(attributes: { policy: string; outcome: string; kind: string; name: string }): void;
}

export interface GaugePoint {
  value: number;
  attributes: Record<string, string>;
}

/** The connection facts of a request that telemetry records (client.address, client.port, network.protocol.version). */
export interface NetworkFacts {
  readonly peerAddress?: string;
  readonly peerPort?: number;
  readonly httpVersion?: string;
}

export interface TracedRequest {
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  protocolVersion?: string;
  /** network.transport: 'tcp' for HTTP, 'pipe' for stdio and in-process connections. */
  transport: 'tcp' | 'pipe';
  /** HTTP only: client.address, client.port, network.protocol.version. */
  network?: NetworkFacts;
}

export interface TracedSession {
  readonly id: string | undefined;
}
