import type * as Api from '@opentelemetry/api';
import type { GaugePoint, RequestTelemetry, TelemetryOptions, TracedRequest, TracedSession } from './telemetry-options';
import { RequestContexts } from './request-contexts';
import { carriesContext, contextMeta, extractContext } from './trace-context';

type Attributes = Record<string, string | number | boolean>;
interface Outcome {
  error?: { code?: number; message?: string };
  result?: { isError?: unknown };
}

const SCOPE = 'mcpkit';
/** Request durations are short: the semantic conventions' advice for mcp.*.duration. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
// The values of the API's SpanKind and SpanStatusCode enums (stable since 1.0), without a getter call per request.
const SERVER = 1 satisfies Api.SpanKind.SERVER;
const INTERNAL = 0 satisfies Api.SpanKind.INTERNAL;
const ERROR = 2 satisfies Api.SpanStatusCode.ERROR;

/**
 * The context of a request being served: its remote parent and its server span. The context holding
 * both is made only when something asks for it (a request to the client, a child span, a context
 * manager to make it active): most requests never need it, and each context the API makes copies a Map.
 */
interface Carried {
  readonly parent: Api.Context;
  readonly span: Api.Span | undefined;
  ctx: Api.Context | undefined;
}

/** The tool or prompt a request names: what follows the method in its span name. */
function targetOf({ method, params }: TracedRequest): string | undefined {
  const name = params?.name;
  return typeof name === 'string' && name && (method === 'tools/call' || method === 'prompts/get') ? name : undefined;
}

/** A request's span attributes (MCP semantic conventions): those every request has in the literal, then the others. */
function spanAttributes(request: TracedRequest, session: TracedSession, target: string | undefined): Attributes {
  const { method, params, network } = request;
  const attributes: Attributes = {
    'mcp.method.name': method,
    'jsonrpc.request.id': String(request.id),
    'network.transport': request.transport,
  };
  if (target === undefined) {
    if (typeof params?.uri === 'string' && method.startsWith('resources/')) attributes['mcp.resource.uri'] = params.uri;
  } else if (method === 'tools/call') {
    attributes['gen_ai.tool.name'] = target;
    attributes['gen_ai.operation.name'] = 'execute_tool';
  } else attributes['gen_ai.prompt.name'] = target;
  if (session.id) attributes['mcp.session.id'] = session.id;
  if (request.protocolVersion) attributes['mcp.protocol.version'] = request.protocolVersion;
  if (network) {
    attributes['network.protocol.name'] = 'http';
    if (network.httpVersion) attributes['network.protocol.version'] = network.httpVersion;
    if (network.peerAddress) attributes['client.address'] = network.peerAddress;
    if (network.peerPort !== undefined) attributes['client.port'] = network.peerPort;
  }
  return attributes;
}

/** Telemetry through @opentelemetry/api: spans and metrics ('full') or trace context only ('propagation'). */
export class OtelTelemetry implements RequestTelemetry {
  private readonly tracer?: Api.Tracer;
  /**
   * The global tracer provider while no SDK stands behind it: its tracer makes non-recording spans only,
   * so none is started (and no attribute built). Checked again at each request, dropped once an SDK is there.
   */
  private idle?: Api.ProxyTracerProvider;
  /** What an idle provider delegates to. */
  private readonly noopProvider?: Api.TracerProvider;
  /** False when the meter is the API's no-op one: its instruments would record nothing, for good. */
  private readonly metered: boolean = false;
  private readonly operationDuration?: Api.Histogram;
  private readonly sessionDuration?: Api.Histogram;
  private readonly activeSessions?: Api.UpDownCounter;
  private readonly errors?: Api.Counter;
  private readonly policyOutcomes?: Api.Counter;
  private readonly meter?: Api.Meter;
  /** The context of each request being served, for its child spans and its requests to the client. */
  private readonly contexts = new RequestContexts<Carried>();
  private readonly opened = new WeakMap<TracedSession, number>();
  // The API's namespaces, read once: each is a getter of the module.
  private readonly trace: Api.TraceAPI;
  private readonly context: Api.ContextAPI;
  private readonly root: Api.Context;
  /** A context that is active only where a context manager (an SDK's) makes the context given to with() active. */
  private readonly probe: Api.Context;
  private readonly probed = () => this.context.active() === this.probe;
  readonly recording: boolean;
  readonly validationSpans: boolean;

  constructor(
    private readonly api: typeof Api,
    options: TelemetryOptions,
  ) {
    this.trace = api.trace;
    this.context = api.context;
    this.root = api.ROOT_CONTEXT;
    this.probe = api.ROOT_CONTEXT.setValue(api.createContextKey('mcpkit context manager probe'), true);
    this.recording = options.mode === 'full';
    this.validationSpans = this.recording && options.spans?.validation === true;
    if (!this.recording) return;
    const tracerProvider = (options.tracerProvider as Api.TracerProvider | undefined) ?? api.trace.getTracerProvider();
    this.tracer = tracerProvider.getTracer(SCOPE);
    // ProxyTracerProvider is deprecated in the API's 1.x (gone in a next major): then every provider is taken as live.
    if (typeof api.ProxyTracerProvider === 'function' && tracerProvider instanceof api.ProxyTracerProvider) {
      this.idle = tracerProvider;
      this.noopProvider = new api.ProxyTracerProvider().getDelegate();
    }
    const meter = ((options.meterProvider as Api.MeterProvider | undefined) ?? api.metrics.getMeterProvider()).getMeter(SCOPE);
    this.meter = meter;
    const advice = { advice: { explicitBucketBoundaries: DURATION_BUCKETS } };
    this.operationDuration = meter.createHistogram('mcp.server.operation.duration', {
      unit: 's',
      description: 'MCP request duration as observed on the server',
      ...advice,
    });
    // The API's no-op meter hands out one shared instrument of each kind; a meter provider registered later
    // would not reach instruments made now anyway.
    this.metered = this.operationDuration !== api.createNoopMeter().createHistogram(SCOPE);
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
    this.policyOutcomes = meter.createCounter('mcpkit.server.policy.outcomes', {
      unit: '{call}',
      description: 'Calls a policy refused, served from its store, or let through unguarded, by policy and outcome',
    });
  }

  /** The tracer, unless it would make non-recording spans only (no SDK registered yet). */
  private liveTracer(): Api.Tracer | undefined {
    const idle = this.idle;
    if (idle === undefined) return this.tracer;
    if (idle.getDelegate() === this.noopProvider) return undefined;
    this.idle = undefined;
    return this.tracer;
  }

  /** True when a context manager is registered: the API's default one never makes a context active. */
  private managed(): boolean {
    return this.context.with(this.probe, this.probed);
  }

  // `run` starts before the first await: requests start in the order they arrive.
  async serve<T>(request: TracedRequest, session: TracedSession, run: () => Promise<T>): Promise<T> {
    const meta = request.params?._meta as Record<string, unknown> | undefined;
    const tracer = this.tracer && this.liveTracer();
    if (!tracer && !this.metered) {
      // No span and no metric: nothing needs the remote context now. It is read when something asks
      // for it (a request to the client, a child span once an SDK is there), unless a context manager
      // makes it active around the handler. No trace context at all: none is remembered.
      if (!carriesContext(meta, request.headers)) return run();
      const managed = this.managed();
      if (!managed) return this.within(session, request.id, new LazyContext(this.api, meta, request.headers), false, run);
    }
    const parent = extractContext(this.api, meta, request.headers);
    if (tracer || this.metered) return this.spanned(tracer, request, session, parent, run);
    return parent === this.root ? run() : this.within(session, request.id, { parent, span: undefined, ctx: undefined }, true, run);
  }

  /** Runs a request in its server span (when a tracer records) and records its duration (when a meter does). */
  private spanned<T>(
    tracer: Api.Tracer | undefined,
    request: TracedRequest,
    session: TracedSession,
    parent: Api.Context,
    run: () => Promise<T>,
  ): Promise<T> {
    const started = this.metered ? performance.now() : 0;
    const target = targetOf(request);
    // Without a context manager no context is ever active: no ambient span to link, none to enter.
    const managed = this.managed();
    let span: Api.Span | undefined;
    if (tracer) {
      const attributes = spanAttributes(request, session, target);
      // The MCP parent comes from _meta; the ambient context (an HTTP server span of another instrumentation) is linked.
      const ambient = managed ? this.trace.getSpan(this.context.active()) : undefined;
      const links = ambient && this.trace.getSpan(parent) !== ambient ? [{ context: ambient.spanContext() }] : undefined;
      span = tracer.startSpan(target ? `${request.method} ${target}` : request.method, { kind: SERVER, attributes, links }, parent);
    }
    const end = (outcome: Outcome | undefined, error?: unknown) => this.ended(span, request, target, started, outcome, error);
    return this.within(session, request.id, { parent, span, ctx: undefined }, managed, run, end);
  }

  /** The context of a request being served: its server span (if any) in its remote parent. */
  private contextOf(carried: Carried): Api.Context {
    return (carried.ctx ??= carried.span ? this.trace.setSpan(carried.parent, carried.span) : carried.parent);
  }

  /** Ends a request's span with its outcome, and records its duration and error. */
  private ended(
    span: Api.Span | undefined,
    request: TracedRequest,
    target: string | undefined,
    started: number,
    outcome: Outcome | undefined,
    thrown: unknown,
  ): void {
    let type: string | undefined;
    let code: string | undefined;
    if (outcome?.error) type = code = String(outcome.error.code ?? '_OTHER');
    else if (outcome?.result?.isError === true) type = 'tool_error';
    if (span) {
      if (thrown !== undefined) span.recordException(thrown as Error);
      if (type) {
        span.setAttribute('error.type', type);
        span.setStatus({ code: ERROR, message: outcome?.error?.message });
      }
      if (code) span.setAttribute('rpc.response.status_code', code);
      span.end();
    }
    if (!this.metered) return;
    if (code) this.errors!.add(1, { 'rpc.response.status_code': code, 'mcp.method.name': request.method });
    const metric: Attributes = { 'mcp.method.name': request.method };
    if (target !== undefined) metric[request.method === 'tools/call' ? 'gen_ai.tool.name' : 'gen_ai.prompt.name'] = target;
    metric['network.transport'] = request.transport;
    if (request.protocolVersion) metric['mcp.protocol.version'] = request.protocolVersion;
    if (type) metric['error.type'] = type;
    this.operationDuration!.record((performance.now() - started) / 1000, metric);
  }

  inject(session: TracedSession, relatedId: string | number | undefined, params: Record<string, unknown>): Record<string, unknown> {
    const served = relatedId === undefined ? undefined : this.contexts.get(session, relatedId);
    const carried = served ? contextMeta(this.api, this.contextOf(served)) : undefined;
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
    const tracer = this.tracer && this.liveTracer();
    return tracer ? this.childSpan(tracer, owner, id, name, attributes, work, failed) : work();
  }

  private childSpan<T>(
    tracer: Api.Tracer,
    owner: object,
    id: string | number,
    name: string,
    attributes: Record<string, string>,
    work: () => Promise<T>,
    failed?: (result: T) => string | undefined,
  ): Promise<T> {
    const served = this.contexts.get(owner, id);
    const parent = served ? this.contextOf(served) : this.context.active();
    const span = tracer.startSpan(name, { kind: INTERNAL, attributes }, parent);
    const fault = (error: unknown) => {
      span.setAttribute('error.type', error instanceof Error ? error.constructor.name : '_OTHER');
      span.setStatus({ code: ERROR });
      span.end();
    };
    let running: Promise<T>;
    try {
      // Without a context manager the child's context would be made for no one to read.
      running = this.managed() ? this.context.with(this.trace.setSpan(parent, span), work) : work();
    } catch (error) {
      fault(error);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what work() threw, unchanged, as the rejection an async work() would give
      return Promise.reject(error);
    }
    // then(ok, failed) rather than an async function: one promise instead of two.
    return running.then(
      (result) => {
        const type = failed?.(result);
        if (type) {
          span.setAttribute('error.type', type);
          span.setStatus({ code: ERROR });
        }
        span.end();
        return result;
      },
      (error: unknown) => {
        fault(error);
        throw error;
      },
    );
  }

  policyOutcome({ policy, outcome, kind, name }: { policy: string; outcome: string; kind: string; name: string }): void {
    if (!this.recording) return;
    const attributes = { 'mcpkit.policy': policy, 'mcpkit.policy.outcome': outcome, 'mcpkit.handler.kind': kind };
    this.policyOutcomes?.add(1, attributes);
    this.trace.getActiveSpan()?.addEvent('mcpkit.policy', { ...attributes, 'mcpkit.handler.name': name });
  }

  gauge(name: string, unit: string, description: string, read: () => number | ReadonlyArray<GaugePoint>): void {
    this.meter?.createObservableUpDownCounter(name, { unit, description }).addCallback((result) => {
      const points = read();
      if (typeof points === 'number') result.observe(points);
      else for (const point of points) result.observe(point.value, point.attributes);
    });
  }

  sessionOpened(session: TracedSession): void {
    if (!this.metered) return;
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

  /**
   * Runs `run` in the request's context (active when a context manager is: `managed`), known to requests
   * the session sends to the client on behalf of request `id`; `end` (if any) is told how it ended.
   */
  private async within<T>(
    session: TracedSession,
    id: string | number,
    carried: Carried,
    managed: boolean,
    run: () => Promise<T>,
    end?: (outcome: Outcome | undefined, error?: unknown) => void,
  ): Promise<T> {
    this.contexts.set(session, id, carried);
    let result: T;
    try {
      result = await (managed ? this.context.with(this.contextOf(carried), run) : run());
    } catch (error) {
      this.contexts.delete(session, id);
      end?.(thrown(error), error);
      throw error;
    }
    this.contexts.delete(session, id);
    end?.(result as Outcome | undefined);
    return result;
  }
}

/**
 * The remote context of a request served with no span and no metric, read on first use: most such
 * requests send the client nothing and have no child span, and reading a traceparent was half of what
 * telemetry with no SDK cost a call (counted: bench/request-instructions.ts). A context that cannot be
 * read is the root one: nothing is then carried to the client.
 */
class LazyContext implements Carried {
  private read?: Api.Context;
  readonly span = undefined;
  ctx: Api.Context | undefined = undefined;

  constructor(
    private readonly api: typeof Api,
    private readonly meta: Record<string, unknown> | undefined,
    private readonly headers: TracedRequest['headers'],
  ) {}

  get parent(): Api.Context {
    if (this.read === undefined) {
      try {
        this.read = extractContext(this.api, this.meta, this.headers);
      } catch {
        this.read = this.api.ROOT_CONTEXT;
      }
    }
    return this.read;
  }
}

/** The outcome of a request whose handler threw (mcpkit's handlers answer errors rather than throw). */
function thrown(error: unknown): Outcome {
  return { error: { code: undefined, message: error instanceof Error ? error.message : undefined } };
}
