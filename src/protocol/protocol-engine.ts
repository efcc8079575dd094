import type { Implementation, ServerCapabilities } from '../mcp/mcp-types';
import type { ListKind, Registry } from '../registry/registry';
import type { ToolErrorPolicy } from './handlers/tool-result.mapper';
import type { Connection, ConnectionOptions, MessageSink } from './connection';
import { Authorizer, type ResolveGuard } from './authorizer';
import { completionHandlers } from './handlers/completion.handlers';
import type { HandlerEnv } from './handlers/handler-env';
import type { ToolSearchOptions } from './handlers/tool-search';
import type { PolicyStore } from '../contracts/policy-store';
import { lifecycleHandlers } from './handlers/lifecycle.handlers';
import { promptsHandlers } from './handlers/prompts.handlers';
import { resourcesHandlers } from './handlers/resources.handlers';
import { toolsHandlers } from './handlers/tools.handlers';
import type { PeerState } from './peer';
import type { ProtocolFeature } from './protocol-feature';
import type { MethodHandler } from './request-scope';
import { ServerSession } from './server-session';
import type { EnginePort } from './engine-port';
import { StatelessRequest } from './stateless-request';
import { clientNotification, serveRequest, traced } from './request-core';
import { isResponse, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from '../mcp/json-rpc';
import type { TransportExtra } from './request-scope';
import type { EraSupport } from '../mcp/eras';
import { PerRequestDispatch } from './per-request/per-request-dispatch';
import type { CacheHints } from '../contracts/cache-hints';
import { type RequestStateOptions, RequestStateSealer } from './per-request/request-state';
import { SubscriptionHub } from './per-request/subscriptions';
import type { Extensions } from '../mcp/extensions';
import { InvalidExtensionError } from '../errors/invalid-extension.error';
import type { RequestTelemetry } from '../observability/telemetry-options';
import { CustomMethods } from './custom-methods';
import { Pipelines } from './pipeline/pipelines';
import type { StageSuppliers } from './pipeline/stages';
import { coreStages } from './pipeline/core.stages';
import type { HandlerRef } from '../registry/descriptors';

export interface ProtocolEngineOptions {
  registry: Registry;
  /** How long list changes are gathered before clients are told, in ms. */
  listChangedDebounceMs?: number;
  serverInfo: Implementation;
  instructions?: string;
  pageSize: number;
  /** Search mode (see handlers/tool-search.ts) and where its groups are kept; undefined when off. */
  toolSearch?: { readonly options: ToolSearchOptions; readonly store: PolicyStore };
  clientRequestTimeoutMs: number;
  /** The stages of handlers' pipelines the application supplies (policies, middleware, the invocation itself). */
  stages: StageSuppliers;
  /** Resolves `@UseGuards` classes (through the application's container); default: `new Guard()`. */
  resolveGuard?: ResolveGuard;
  /** Handed on detached (to the pipelines' steps, subscriptions, custom methods): a function, not a method. */
  logError: (message: string, error?: unknown) => void;
  /** Warnings about the application's code, to the server log (once each where the caller says so). */
  logWarn?: (message: string) => void;
  /** A plain exception thrown by a tool shows its message to the model (default: a generic message). */
  exposeToolErrors?: boolean;
  /** Refusals carry SEP-2643's `authorization` envelope (a draft). */
  structuredDenials?: boolean;
  /** Protocol features beyond the core (tasks). */
  features?: (env: HandlerEnv) => ProtocolFeature[];
  /** The eras served (default 'dual': 2026-07-28 requests and 2025-11-25 sessions alike). */
  eras?: EraSupport;
  /** How multi round-trip requests seal their requestState. */
  requestState?: RequestStateOptions;
  /** Caching hints of per-request results. */
  cache?: CacheHints;
  /** The extensions the server author declared (checked), advertised in both eras. */
  extensions?: Extensions;
  /** Kinds offered (capability, methods) even while the registry holds none of them. */
  offer?: Readonly<Partial<Record<'tools' | 'resources' | 'prompts' | 'completions', boolean>>>;
  /** Handlers of methods that exist only in the per-request era (subscriptions/listen). */
  perRequestHandlers?: (engine: ProtocolEngine) => Record<string, MethodHandler>;
  /** Spans, metrics and trace context (createTelemetry of the application's TelemetryOptions); undefined when off. */
  telemetry?: RequestTelemetry;
  /** Results kept by call policies: cleared when a resource they read is updated or their list changes. */
  cachedResults?: CachedResults;
}

/** Results cached by the call policies, and what makes them stale. */
export interface CachedResults {
  resourceUpdated(uri: string): Promise<void>;
  listChanged(list: ListKind): Promise<void>;
}

/** A method and the capability that must be on for it to exist. */
interface Route {
  handler: MethodHandler;
  capability?: keyof ServerCapabilities;
}

/**
 * The MCP server side of one application: the method -> handler map, and capabilities that follow
 * the registry (a kind added at runtime brings its methods and capability), shared by every session
 * of every transport.
 */
export class ProtocolEngine implements EnginePort {
  readonly clientRequestTimeoutMs: number;
  /** Every handler's pipeline (authorization, policies, tasks, validation, middleware, the handler). */
  readonly pipelines = new Pipelines();
  readonly eras: EraSupport;
  /** The open `subscriptions/listen` streams (2026-07-28 clients hear of changes there). */
  readonly subscriptions: SubscriptionHub;
  /** Decides per-handler requirements (scopes, guards). */
  readonly authorizer: Authorizer;
  readonly telemetry?: RequestTelemetry;
  /** The methods the application added (`app.addMethod`). */
  readonly custom: CustomMethods;
  private readonly routes = new Map<string, Route>();
  private readonly features: ProtocolFeature[];
  private readonly sessions = new Set<ServerSession>();
  /** Stateless requests being served (until their transport closes them). */
  private readonly stateless = new Set<StatelessRequest>();
  private readonly changedLists = new Set<ListKind>();
  private listChangedTimer?: NodeJS.Timeout;
  private readonly toldOfChange = new Set<ServerSession>();
  private readonly rootsListeners = new Set<(peer: PeerState) => void>();
  private caps?: ServerCapabilities;
  private perRequestCaps?: ServerCapabilities;
  private readonly sealer?: RequestStateSealer;
  private dispatch?: PerRequestDispatch;

  constructor(private readonly options: ProtocolEngineOptions) {
    this.clientRequestTimeoutMs = options.clientRequestTimeoutMs;
    this.telemetry = options.telemetry;
    this.subscriptions = new SubscriptionHub(options.logError);
    this.telemetry?.gauge('mcpkit.server.listen.active', '{stream}', 'Open subscriptions/listen streams', () => this.subscriptions.size);
    this.authorizer = new Authorizer(options.resolveGuard ?? ((guard) => new guard()));
    this.custom = new CustomMethods({
      pipelines: this.pipelines,
      logError: options.logError,
      isOwn: (method) => this.routes.has(method) || this.features.some((f) => perRequestMethod(f, method) !== undefined),
      changed: () => (this.caps = this.perRequestCaps = undefined),
    });
    const base: HandlerEnv = {
      registry: options.registry,
      serverInfo: options.serverInfo,
      instructions: options.instructions,
      capabilities: () => this.capabilities,
      pageSize: options.pageSize,
      toolSearch: options.toolSearch && { ...options.toolSearch, subscriptions: this.subscriptions, logError: options.logError },
      pipelines: this.pipelines,
      authorizer: this.authorizer,
      subscriptions: this.subscriptions,
      logError: options.logError,
    };
    this.features = options.features?.(base) ?? [];
    for (const { extension, ownExtensions = [] } of this.features) {
      for (const id of extension ? [extension, ...ownExtensions] : ownExtensions) {
        if (options.extensions?.[id])
          throw new InvalidExtensionError('the application', `"${id}" is served by mcpkit itself; do not declare it`);
      }
    }
    this.pipelines.supply(
      coreStages({
        authorizer: this.authorizer,
        telemetry: this.telemetry,
        logError: options.logError,
        toolErrors: toolErrors(options),
        structuredDenials: options.structuredDenials,
      }),
    );
    this.pipelines.supply(options.stages);
    for (const feature of this.features) if (feature.stages) this.pipelines.supply(feature.stages);
    const env: HandlerEnv = base;
    this.add(lifecycleHandlers(env));
    this.add(toolsHandlers(env), 'tools');
    this.add(resourcesHandlers(env), 'resources');
    this.add(promptsHandlers(env), 'prompts');
    this.add(completionHandlers(env), 'completions');
    for (const feature of this.features) this.add(feature.eras.handshake?.methods ?? {}, feature.capability);
    this.eras = options.eras ?? 'dual';
    // Made now, so that a requestState secret too short fails here rather than at the first per-request-era request.
    if (this.eras !== 'handshake') this.sealer = new RequestStateSealer(options.requestState);
    // Each handler's pipeline is composed now, and a new handler's when its list changes.
    const registry = options.registry;
    for (const list of ['tools', 'resources', 'prompts'] as const) this.pipelines.prepare(handlersOf(registry, list));
    registry.onChange((list) => {
      options.cachedResults?.listChanged(list).catch((e) => options.logError(`Could not clear the results cached for ${list}`, e));
      this.pipelines.prepare(handlersOf(registry, list));
      this.listChanged(list);
    });
    registry.onKindsChange((kinds, previous) => {
      this.caps = this.perRequestCaps = undefined;
      // What a tool's task boundary does depends on whether some tool may run as a task.
      if (kinds.taskTools !== previous.taskTools) this.pipelines.rebuild(registry.toolDescriptors());
    });
  }

  /**
   * Serves 2026-07-28 requests; undefined when the server serves the handshake era only. Built on first
   * use (a transport that classifies requests, or the first per-request-era request).
   */
  get perRequest(): PerRequestDispatch | undefined {
    if (!this.sealer) return undefined;
    this.dispatch ??= this.buildDispatch(this.sealer);
    return this.dispatch;
  }

  private buildDispatch(sealer: RequestStateSealer): PerRequestDispatch {
    const { options } = this;
    return new PerRequestDispatch({
      support: this.eras,
      sealer,
      serverInfo: options.serverInfo,
      instructions: options.instructions,
      capabilities: () => this.perRequestCapabilities,
      handler: (method) => this.handler(method),
      perRequestHandlers: options.perRequestHandlers?.(this),
      featureHandler: (method) => this.featureMethod(method),
      multiRound: (method) => this.custom.handler(method, true) !== undefined,
      cache: options.cache,
      logError: options.logError,
    });
  }

  /** Recomputes the capabilities at their next use: what a feature serves changed (skills were added or removed). */
  capabilitiesChanged(): void {
    this.caps = this.perRequestCaps = undefined;
  }

  /** The capabilities for the registry as it is now (recomputed only when the kinds it holds changed). */
  get capabilities(): ServerCapabilities {
    this.caps ??= this.custom.merge(this.deriveCapabilities(), false);
    return this.caps;
  }

  /** The same for 2026-07-28 clients: a feature served as an extension is advertised as that extension. */
  get perRequestCapabilities(): ServerCapabilities {
    if (this.perRequestCaps) return this.perRequestCaps;
    const caps: Record<string, unknown> = { ...this.deriveCapabilities() };
    const extensions: Record<string, Record<string, unknown>> = { ...(caps.extensions as object) };
    for (const feature of this.features) {
      if (!feature.extension || caps[feature.capability] === undefined) continue;
      delete caps[feature.capability];
      extensions[feature.extension] = {};
    }
    if (Object.keys(extensions).length > 0) caps.extensions = extensions;
    return (this.perRequestCaps = this.custom.merge(caps, true));
  }

  /** A per-request-only method of a feature that is on now, or a custom method served to per-request-era requests. */
  private featureMethod(method: string): MethodHandler | undefined {
    for (const feature of this.features) {
      const handler = perRequestMethod(feature, method);
      if (handler && this.capabilities[feature.capability] !== undefined) return handler;
    }
    return this.custom.handler(method, true);
  }

  handler(method: string): MethodHandler | undefined {
    const route = this.routes.get(method);
    if (!route) return this.custom.handler(method, false);
    if (route.capability && this.capabilities[route.capability] === undefined) return undefined;
    return route.handler;
  }

  /** Tells every subscribed session, and every listen stream naming it (here and on other instances), that a resource changed. */
  async notifyResourceUpdated(uri: string): Promise<void> {
    // Before anyone is told: a client re-reading at once must not get the cached result.
    await this.options.cachedResults
      ?.resourceUpdated(uri)
      .catch((e) => this.options.logError(`Could not clear the results cached for ${uri}`, e));
    const targets = [...this.sessions].filter((s) => s.subscriptions.has(uri));
    await Promise.all([
      ...targets.map((s) => s.notify('notifications/resources/updated', { uri })),
      this.subscriptions.changed({ kind: 'resource', uri }),
    ]);
  }

  /** Listens to `notifications/roots/list_changed` from any client; returns the function that stops it. */
  onRootsListChanged(listener: (peer: PeerState) => void): () => void {
    this.rootsListeners.add(listener);
    return () => this.rootsListeners.delete(listener);
  }

  rootsListChanged(peer: PeerState): void {
    for (const l of this.rootsListeners) l(peer);
  }

  notification(method: string, params: Record<string, unknown>, peer: PeerState): void {
    this.custom.notified(method, params, peer);
  }

  /** Opens a session whose outbound messages go to `sink`. */
  createSession(sink: MessageSink, options?: ConnectionOptions): Connection {
    const session = new ServerSession(this, sink, options);
    this.sessions.add(session);
    if (options?.requireInitialize !== false) this.telemetry?.sessionOpened(session);
    return session;
  }

  /**
   * Serves one request with no session: a 2026-07-28 request (its envelope, read by the transport, in
   * `extra.envelope`), or a 2025-11-25 one over HTTP without sessions. Only the request's own scope is
   * built, on the same per-request core as a session's requests; `peer` is what the transport knows of
   * the client, `sink` carries the request's own notifications and requests to it. The transport closes
   * the returned request once it is answered, or when its client left (which cancels it).
   */
  serveStateless(request: JsonRpcRequest, extra: TransportExtra, peer: PeerState, sink: MessageSink): StatelessRequest {
    const served = new StatelessRequest(this, sink, peer);
    const envelope = extra.envelope;
    served.response = this.telemetry
      ? traced(this.telemetry, served, request, extra, () => serveRequest(this, served, request, extra, envelope))
      : serveRequest(this, served, request, extra, envelope);
    // Counted and closed with the server (as a session's in-flight requests) until its transport closes it.
    this.stateless.add(served);
    return served;
  }

  /**
   * A notification or response sent with no session. A notification reaches the application's
   * listeners (`peer` is what the transport knows of the client); one about a session's lifecycle
   * (`initialized`, `cancelled`) and a response name nothing that exists here.
   */
  receiveStateless(message: JsonRpcNotification | JsonRpcResponse, peer: PeerState): void {
    if (isResponse(message) || message.method === 'notifications/initialized' || message.method === 'notifications/cancelled') return;
    clientNotification(this, message, peer);
  }

  statelessClosed(request: StatelessRequest): void {
    this.stateless.delete(request);
  }

  onSessionClosed(session: ServerSession): void {
    this.sessions.delete(session);
    this.telemetry?.sessionClosed(session);
  }

  logError(message: string, error?: unknown): void {
    this.options.logError(message, error);
  }

  /** Requests in flight across all sessions. */
  get inflightCount(): number {
    let n = 0;
    for (const s of this.sessions) n += s.inflightCount;
    for (const r of this.stateless) if (r.running) n++;
    return n;
  }

  closeAllSessions(): void {
    for (const s of [...this.sessions]) s.close();
    for (const r of [...this.stateless]) r.close();
    clearTimeout(this.listChangedTimer);
    this.listChangedTimer = undefined;
    this.changedLists.clear();
    this.toldOfChange.clear();
  }

  private add(handlers: Record<string, MethodHandler>, capability?: keyof ServerCapabilities): void {
    for (const [method, handler] of Object.entries(handlers)) this.routes.set(method, { handler, capability });
  }

  /**
   * Gathers list changes for a moment, then notifies every initialized session once per list, for
   * the lists it was told about at initialize, and the listen streams whose filter names them.
   */
  private listChanged(list: ListKind): void {
    this.changedLists.add(list);
    // Only the sessions that exist now hear of it: one that starts later reads the lists as they are.
    for (const session of this.sessions) this.toldOfChange.add(session);
    if (this.listChangedTimer) return;
    this.listChangedTimer = setTimeout(() => {
      this.listChangedTimer = undefined;
      const lists = [...this.changedLists];
      const sessions = [...this.toldOfChange];
      this.changedLists.clear();
      this.toldOfChange.clear();
      // changed never rejects (a bus failure is logged).
      void this.subscriptions.changed({ kind: 'lists', lists });
      for (const session of sessions) {
        if (!session.initialized || session.closed || !session.advertised) continue;
        // notify never rejects: the session logs what its sink could not send.
        for (const l of lists) if (session.advertised[l]) void session.notify(`notifications/${l}/list_changed`, undefined);
      }
    }, this.options.listChangedDebounceMs ?? 10);
    this.listChangedTimer.unref?.();
  }

  private deriveCapabilities(): ServerCapabilities {
    const registry = this.options.registry;
    const caps: ServerCapabilities = { logging: {} };
    for (const feature of this.features) {
      const value = feature.capabilityFor(registry);
      if (value !== undefined) (caps as Record<string, unknown>)[feature.capability] = value;
    }
    const kinds = registry.kinds(),
      offer = this.options.offer ?? {};
    if (kinds.tools || offer.tools) caps.tools = { listChanged: true };
    if (kinds.resources || offer.resources) caps.resources = { subscribe: true, listChanged: true };
    if (kinds.prompts || offer.prompts) caps.prompts = { listChanged: true };
    if (kinds.completions || offer.completions) caps.completions = {};
    const extensions: Record<string, unknown> = structuredClone(this.options.extensions ?? {});
    for (const feature of this.features) Object.assign(extensions, structuredClone(feature.extensionsFor?.()));
    if (Object.keys(extensions).length > 0) caps.extensions = extensions as ServerCapabilities['extensions'];
    return caps;
  }
}

/** The handlers of a list: its primitives, and the completers of its prompts and templates. */
function handlersOf(registry: Registry, list: ListKind): HandlerRef[] {
  if (list === 'tools') return registry.toolDescriptors();
  const owners = list === 'prompts' ? registry.promptDescriptors() : registry.templateDescriptors();
  const completers = owners.flatMap((o) => [...o.completers.values()]);
  return list === 'prompts' ? [...owners, ...completers] : [...registry.resourceDescriptors(), ...owners, ...completers];
}

/** How a tool's plain exceptions reach the model: hidden unless exposed, with one warning about hiding them. */
function toolErrors(options: ProtocolEngineOptions): ToolErrorPolicy {
  let warned = false;
  return {
    expose: options.exposeToolErrors === true,
    warnOnce: (message) => {
      if (warned) return;
      warned = true;
      options.logWarn?.(message);
    },
  };
}

/** A feature's per-request-only method: an own member of its table only (a client's "constructor" or "toString" is none). */
function perRequestMethod(feature: ProtocolFeature, method: string): MethodHandler | undefined {
  const methods = feature.eras['per-request']?.methods;
  return methods && Object.hasOwn(methods, method) ? methods[method] : undefined;
}
