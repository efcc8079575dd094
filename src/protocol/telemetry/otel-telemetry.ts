import type * as Api from '@opentelemetry/api';
import type { GaugePoint, RequestTelemetry, TelemetryOptions, TracedRequest, TracedSession } from './telemetry-options';
import { contextMeta, extractContext } from './trace-context';

type Attributes = Record<string, string | number | boolean>;
interface Outcome {
  error?: { code?: number; message?: string };
  result?: { isError?: unknown };
}

const SCOPE = 'mcpkit';
/** Request durations are short: the semantic conventions' advice for mcp.*.duration. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The name (tool, prompt) that follows the method in the span name, and the request's own attributes. */
function describe(request: TracedRequest): { target?: string; attributes: Attributes } {
  const { method, params } = request;
  const attributes: Attributes = { 'mcp.method.name': method };
  const name = typeof params?.name === 'string' ? params.name : undefined;
  let target: string | undefined;
  if (method === 'tools/call' && name) {
    target = name;
    attributes['gen_ai.tool.name'] = name;
    attributes['gen_ai.operation.name'] = 'execute_tool';
  } else if (method === 'prompts/get' && name) {
    target = name;
    attributes['gen_ai.prompt.name'] = name;
  } else if (typeof params?.uri === 'string' && method.startsWith('resources/')) {
    attributes['mcp.resource.uri'] = params.uri;
  }
  return { target, attributes };
}

/** error.type of a response: the JSON-RPC error code, or 'tool_error' for a tool result with isError. */
function errorType(outcome: Outcome | undefined): { type?: string; code?: string } {
  if (outcome?.error) {
    const code = String(outcome.error.code ?? '_OTHER');
    return { type: code, code };
  }
  if (outcome?.result?.isError === true) return { type: 'tool_error' };
  return {};
}

/** Telemetry through @opentelemetry/api: spans and metrics ('full') or trace context only ('propagation'). */
export class OtelTelemetry implements RequestTelemetry {
  private readonly tracer?: Api.Tracer;
  private readonly operationDuration?: Api.Histogram;
  private readonly sessionDuration?: Api.Histogram;
  private readonly activeSessions?: Api.UpDownCounter;
  private readonly errors?: Api.Counter;
  private readonly meter?: Api.Meter;
  /**
   * The context of each request being served, by session or stateless request: a Map, not a WeakMap
   * (cheaper per request, and a stateless request is a key of its own); an entry goes with its last request.
   */
  private readonly contexts = new Map<object, Map<string | number, Api.Context>>();
  private readonly opened = new WeakMap<TracedSession, number>();
  readonly recording: boolean;

  constructor(
    private readonly api: typeof Api,
    options: TelemetryOptions,
  ) {
    this.recording = options.mode === 'full';
    if (!this.recording) return;
    this.tracer = ((options.tracerProvider as Api.TracerProvider | undefined) ?? api.trace.getTracerProvider()).getTracer(SCOPE);
    const meter = ((options.meterProvider as Api.MeterProvider | undefined) ?? api.metrics.getMeterProvider()).getMeter(SCOPE);
    this.meter = meter;
    const advice = { advice: { explicitBucketBoundaries: DURATION_BUCKETS } };
    this.operationDuration = meter.createHistogram('mcp.server.operation.duration', {
      unit: 's',
      description: 'MCP request duration as observed on the server',
      ...advice,
    });
    this.sessionDuration = meter.createHistogram('mcp.server.session.duration', {
      unit: 's',
      description: 'The duration of the MCP session as observed on the MCP server',
      ...advice,
    });
    this.activeSessions = meter.createUpDownCounter('mcpkit.server.session.active', {
      unit: '{session}',
      description: 'Sessions open now',
    });
    this.errors = meter.createCounter('mcpkit.server.errors', {
      unit: '{error}',
      description: 'Requests answered with a JSON-RPC error, by code',
    });
  }

  // Not async, nor is child() with no tracer: in 'propagation' a request pays no promise of telemetry's own.
  serve<T>(request: TracedRequest, session: TracedSession, run: () => Promise<T>): Promise<T> {
    let parent: Api.Context;
    try {
      parent = extractContext(this.api, request.params?._meta as Record<string, unknown> | undefined, request.headers);
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what extractContext threw, unchanged, as the rejection an async serve() would give
      return Promise.reject(error);
    }
    // Nothing to carry: requests to the client get no trace context, so none is remembered.
    if (!this.tracer) return parent === this.api.ROOT_CONTEXT ? run() : this.within(session, request.id, parent, run);
    return this.spanned(this.tracer, request, session, parent, run);
  }

  private async spanned<T>(
    tracer: Api.Tracer,
    request: TracedRequest,
    session: TracedSession,
    parent: Api.Context,
    run: () => Promise<T>,
  ): Promise<T> {
    const { api } = this;
    const started = performance.now();
    const { target, attributes } = describe(request);
    attributes['jsonrpc.request.id'] = String(request.id);
    if (session.id) attributes['mcp.session.id'] = session.id;
    if (request.protocolVersion) attributes['mcp.protocol.version'] = request.protocolVersion;
    attributes['network.transport'] = request.transport;
    const network = request.network;
    if (network) {
      attributes['network.protocol.name'] = 'http';
      if (network.httpVersion) attributes['network.protocol.version'] = network.httpVersion;
      if (network.peerAddress) attributes['client.address'] = network.peerAddress;
      if (network.peerPort !== undefined) attributes['client.port'] = network.peerPort;
    }
    // The MCP parent comes from _meta; the ambient context (an HTTP server span of another instrumentation) is linked.
    const ambient = api.trace.getSpan(api.context.active());
    const links = ambient && api.trace.getSpan(parent) !== ambient ? [{ context: ambient.spanContext() }] : undefined;
    const span = tracer.startSpan(
      target ? `${request.method} ${target}` : request.method,
      { kind: api.SpanKind.SERVER, attributes, links },
      parent,
    );
    let outcome: Outcome | undefined;
    try {
      const result = await this.within(session, request.id, api.trace.setSpan(parent, span), run);
      outcome = result as Outcome | undefined;
      return result;
    } catch (error) {
      outcome = { error: { code: undefined, message: error instanceof Error ? error.message : undefined } };
      span.recordException(error as Error);
      throw error;
    } finally {
      const { type, code } = errorType(outcome);
      const metric: Attributes = { 'mcp.method.name': request.method };
      for (const key of ['gen_ai.tool.name', 'gen_ai.prompt.name', 'network.transport', 'mcp.protocol.version'])
        if (attributes[key] !== undefined) metric[key] = attributes[key];
      if (type) {
        span.setAttribute('error.type', type);
        metric['error.type'] = type;
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: outcome?.error?.message });
      }
      if (code) {
        span.setAttribute('rpc.response.status_code', code);
        this.errors!.add(1, { 'rpc.response.status_code': code, 'mcp.method.name': request.method });
      }
      span.end();
      this.operationDuration!.record((performance.now() - started) / 1000, metric);
    }
  }

  inject(session: TracedSession, relatedId: string | number | undefined, params: Record<string, unknown>): Record<string, unknown> {
    const ctx = relatedId === undefined ? undefined : this.contexts.get(session)?.get(relatedId);
    const carried = ctx ? contextMeta(this.api, ctx) : undefined;
    if (!carried || Object.keys(carried).length === 0) return params;
    return { ...params, _meta: { ...(params._meta as Record<string, unknown> | undefined), ...carried } };
  }

  child<T>(
    owner: object,
    id: string | number,
    name: string,
    attributes: Record<string, string>,
    work: () => Promise<T>,
    failed?: (result: T) => string | undefined,
  ): Promise<T> {
    return this.tracer ? this.childSpan(this.tracer, owner, id, name, attributes, work, failed) : work();
  }

  private async childSpan<T>(
    tracer: Api.Tracer,
    owner: object,
    id: string | number,
    name: string,
    attributes: Record<string, string>,
    work: () => Promise<T>,
    failed?: (result: T) => string | undefined,
  ): Promise<T> {
    const { api } = this;
    const parent = this.contexts.get(owner)?.get(id) ?? api.context.active();
    const span = tracer.startSpan(name, { kind: api.SpanKind.INTERNAL, attributes }, parent);
    try {
      const result = await api.context.with(api.trace.setSpan(parent, span), work);
      const type = failed?.(result);
      if (type) {
        span.setAttribute('error.type', type);
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
      return result;
    } catch (error) {
      span.setAttribute('error.type', error instanceof Error ? error.constructor.name : '_OTHER');
      span.setStatus({ code: api.SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  }

  gauge(name: string, unit: string, description: string, read: () => number | ReadonlyArray<GaugePoint>): void {
    this.meter?.createObservableUpDownCounter(name, { unit, description }).addCallback((result) => {
      const points = read();
      if (typeof points === 'number') result.observe(points);
      else for (const point of points) result.observe(point.value, point.attributes);
    });
  }

  sessionOpened(session: TracedSession): void {
    if (!this.tracer) return;
    this.opened.set(session, performance.now());
    this.activeSessions!.add(1, { 'network.transport': session.id ? 'tcp' : 'pipe' });
  }

  sessionClosed(session: TracedSession): void {
    const started = this.opened.get(session);
    if (started === undefined) return;
    this.opened.delete(session);
    const attributes = { 'network.transport': session.id ? 'tcp' : 'pipe' };
    this.activeSessions!.add(-1, attributes);
    this.sessionDuration!.record((performance.now() - started) / 1000, attributes);
  }

  /** Runs `run` in `ctx`, known to requests the session sends to the client on behalf of request `id`. */
  private within<T>(session: TracedSession, id: string | number, ctx: Api.Context, run: () => Promise<T>): Promise<T> {
    let byId = this.contexts.get(session);
    if (!byId) this.contexts.set(session, (byId = new Map<string | number, Api.Context>()));
    byId.set(id, ctx);
    const forget = () => {
      byId.delete(id);
      if (byId.size === 0 && this.contexts.get(session) === byId) this.contexts.delete(session);
    };
    let running: Promise<T>;
    try {
      running = this.api.context.with(ctx, run);
    } catch (error) {
      forget();
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what run() threw, unchanged, as the rejection an async run() would give
      return Promise.reject(error);
    }
    // then(ok, failed) rather than finally: one promise instead of three.
    return running.then(
      (result) => (forget(), result),
      (error: unknown) => {
        forget();
        throw error;
      },
    );
  }
}
