import { type EraSupport, MetaKey, supportedVersions } from '../../mcp/eras';
import { ErrorCode, type JsonRpcRequest } from '../../mcp/json-rpc';
import { McpError } from '../../mcp/mcp.error';
import type { Implementation, ServerCapabilities } from '../../mcp/mcp-types';
import type { MethodHandler, TransportExtra } from '../request-scope';
import { RawJson, echo } from '../wire';
import { PER_REQUEST_METHODS, MRTR_METHODS } from './envelope';
import type { PeerState } from '../peer';
import { InputRound } from './input-round';
import { type ArgsSnapshot, PerRequestScope } from './per-request-scope';
import type { RequestSite } from '../inflight-request';
import { digestOfCanonical, type RequestStateSealer, stableJson, type StateBinding } from './request-state';
import type { CacheHints } from '../../contracts/cache-hints';
import { ownerOf } from '../../auth/principal';

export type { CacheHint, CacheHints } from '../../contracts/cache-hints';

export interface PerRequestDispatchOptions {
  support: EraSupport;
  sealer: RequestStateSealer;
  serverInfo: Implementation;
  instructions?: string;
  /** The server's capabilities as 2026-07-28 clients see them (extensions included). */
  capabilities(): ServerCapabilities;
  /** The handler of a method the server offers now (the core's, or a feature's). */
  handler(method: string): MethodHandler | undefined;
  /** Handlers of methods that exist only in the per-request era (subscriptions/listen). */
  perRequestHandlers?: Readonly<Record<string, MethodHandler>>;
  /** The handler of a feature's per-request-only method (an extension's), while the feature is on. */
  featureHandler?(method: string): MethodHandler | undefined;
  /** True for a method outside the core that may also answer with an InputRequiredResult (a custom method). */
  multiRound?(method: string): boolean;
  cache?: CacheHints;
  /** Handed on detached (to the sealer): a function, not a method. */
  logError: (message: string, error?: unknown) => void;
}

const LISTS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

/**
 * Serves per-request (2026-07-28) requests on any connection: reads each request's envelope, routes the
 * per-request methods only, runs multi round-trip requests, and completes every result with `resultType`,
 * `serverInfo` and, where the spec asks for them, caching hints.
 */
export class PerRequestDispatch {
  private readonly serverInfoMeta: Readonly<Record<string, unknown>>;

  constructor(private readonly options: PerRequestDispatchOptions) {
    // Every per-request result carries it: a plain copy, frozen (the options' object may change).
    this.serverInfoMeta = Object.freeze(
      JSON.parse(JSON.stringify({ [MetaKey.serverInfo]: options.serverInfo })) as Record<string, unknown>,
    );
  }

  get support(): EraSupport {
    return this.options.support;
  }

  /** Checks the method of a request whose envelope (`peer`) was read; throws the McpError to answer with. */
  prepare(
    request: JsonRpcRequest,
    peer: PeerState,
    extra: TransportExtra | undefined,
    session: RequestSite,
    owner: string,
  ): { scope: PerRequestScope; handler: MethodHandler } {
    const handler = this.route(request.method);
    if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${echo(request.method)}`);
    const params = request.params ?? {};
    const core = MRTR_METHODS.has(request.method);
    if (!core && !this.options.multiRound?.(request.method)) return this.singleRound(request, params, session, owner, extra, peer, handler);
    const responses = params.inputResponses;
    if ('inputResponses' in params && (typeof responses !== 'object' || responses === null || Array.isArray(responses))) {
      throw McpError.invalidParams('Invalid params: inputResponses must be an object');
    }
    // A round needs the client's answers: it can happen only in a retry, or when the client may be asked something.
    if (params.requestState === undefined && !('inputResponses' in params) && !mayBeAsked(peer.clientCapabilities))
      return this.singleRound(request, params, session, owner, extra, peer, handler);
    // Taken now (a handler may change the object it was given); hashed only if a round needs it.
    // A custom method has no `arguments`: its round is bound to its params (less the round's own members).
    const args = core
      ? snapshotOf(params.arguments ?? null)
      : JSON.stringify({ ...params, _meta: undefined, inputResponses: undefined, requestState: undefined });
    return { scope: new PerRequestScope(request.id, request.method, params, session, owner, extra, peer, this.roundFor, args), handler };
  }

  /** A request that runs once: no round, so nothing of its arguments is kept for one. */
  private singleRound(
    request: JsonRpcRequest,
    params: Record<string, unknown>,
    session: RequestSite,
    owner: string,
    extra: TransportExtra | undefined,
    peer: PeerState,
    handler: MethodHandler,
  ): { scope: PerRequestScope; handler: MethodHandler } {
    return { scope: new PerRequestScope(request.id, request.method, params, session, owner, extra, peer, undefined, undefined), handler };
  }

  /**
   * Runs the handler: its result completed, or the InputRequiredResult of a run that needs input.
   * Rejects with the handler's error.
   */
  run(handler: MethodHandler, scope: PerRequestScope): Promise<unknown> {
    return scope.params.requestState === undefined ? this.execute(handler, scope) : this.retry(handler, scope);
  }

  /**
   * Every per-request call's path. A handler that asked the client for something unanswered stops with
   * InputRequiredError (or swallowed it): either way the run ends with the InputRequiredResult. Nothing
   * per request is kept on the scope: a closure over the handler's promise kept there tripled the
   * garbage collector's work under load (measured: -25% req/s over HTTP).
   */
  private async execute(handler: MethodHandler, scope: PerRequestScope): Promise<unknown> {
    let result: unknown;
    try {
      result = await handler(scope.params, scope);
    } catch (error) {
      if (scope.multiRound && scope.needsInput) return this.interim(scope);
      throw error;
    }
    return scope.multiRound && scope.needsInput ? this.interim(scope) : this.complete(scope, result);
  }

  /** A retry: its requestState is opened (after the shared key loaded) before the handler runs again. */
  private async retry(handler: MethodHandler, scope: PerRequestScope): Promise<unknown> {
    await this.options.sealer.ready(this.options.logError);
    scope.round!.open();
    return this.execute(handler, scope);
  }

  /** Ends a run that needs input: the handler is abandoned (its signal aborts), the interim result sealed. */
  private async interim(scope: PerRequestScope): Promise<unknown> {
    scope.abandon();
    await this.options.sealer.ready(this.options.logError);
    return { ...scope.round!.interim(), _meta: this.serverInfoMeta };
  }

  /** The per-request form of an error: a resource not found is -32602 with the URI (it was -32002). */
  mapError(error: McpError): McpError {
    if (error.code !== ErrorCode.ResourceNotFound) return error;
    return new McpError(ErrorCode.InvalidParams, error.message, error.data);
  }

  /** True when the per-request era has this method now. */
  knows(method: string): boolean {
    return this.route(method) !== undefined;
  }

  /**
   * The handler of `method` now. What is found is remembered until the server's capabilities change (the
   * engine makes a new capabilities object whenever a feature, kind or custom method comes or goes); an
   * unknown method is looked up every time, so clients' made-up names never fill the memo.
   */
  private route(method: string): MethodHandler | undefined {
    const generation = this.options.capabilities();
    if (generation !== this.routedFor) {
      this.routed.clear();
      this.routedFor = generation;
    }
    const known = this.routed.get(method);
    if (known) return known;
    const found = this.lookup(method);
    if (found) this.routed.set(method, found);
    return found;
  }

  private readonly routed = new Map<string, MethodHandler>();
  private routedFor?: ServerCapabilities;
  private readonly discoverHandler: MethodHandler = () => this.discover();

  private lookup(method: string): MethodHandler | undefined {
    const handlers = this.options.perRequestHandlers;
    // Own members only: a client's "constructor" or "toString" is no method.
    const own = handlers && Object.hasOwn(handlers, method) ? handlers[method] : undefined;
    if (own) return own;
    const feature = this.options.featureHandler?.(method);
    if (feature) return feature;
    if (method === 'server/discover') return this.discoverHandler;
    return PER_REQUEST_METHODS.has(method) ? this.options.handler(method) : undefined;
  }

  private discover(): Record<string, unknown> {
    const capabilities = this.options.capabilities();
    const result: Record<string, unknown> = { supportedVersions: supportedVersions(this.options.support), capabilities };
    if (this.options.instructions) result.instructions = this.options.instructions;
    return result;
  }

  /** The round of a multi round-trip request, bound to its caller, method, name and arguments. */
  private readonly roundFor = (scope: PerRequestScope): InputRound => {
    const { method, params, extra } = scope;
    const name = method === 'resources/read' ? params.uri : params.name;
    const principal = extra?.auth ? ownerOf(extra.auth) : extra?.local ? 'local' : '';
    const binding = new LazyBinding(principal, method, typeof name === 'string' ? name : '', scope.args ?? 'null');
    return new InputRound(
      this.options.sealer,
      binding,
      scope.peer.clientCapabilities,
      params.requestState,
      params.inputResponses as Record<string, unknown> | undefined,
    );
  };

  private complete(scope: PerRequestScope, result: unknown): unknown {
    const hint = this.cacheHint(scope);
    if (result instanceof RawJson) {
      const head: Record<string, unknown> = { resultType: 'complete', ...hint, _meta: this.serverInfoMeta };
      const json = JSON.stringify(head);
      return new RawJson(result.json.length <= 2 ? json : `${json.slice(0, -1)},${result.json.slice(1)}`);
    }
    const value = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
    const meta = value._meta && typeof value._meta === 'object' ? { ...value._meta, ...this.serverInfoMeta } : this.serverInfoMeta;
    return { resultType: 'complete', ...value, ...hint, _meta: meta };
  }

  private cacheHint(scope: PerRequestScope): { ttlMs: number; cacheScope: 'public' | 'private' } | undefined {
    const method = scope.method;
    const cache = this.options.cache;
    const hint =
      method === 'server/discover'
        ? cache?.discover
        : LISTS.has(method)
          ? cache?.lists
          : method === 'resources/read'
            ? (scope.cacheHint ?? cache?.reads)
            : // Another cacheable result (an extension's, as skills/get) sets its hint on the scope.
              scope.cacheHint;
    if (!hint && method !== 'server/discover' && !LISTS.has(method) && method !== 'resources/read') return undefined;
    // A retried multi round-trip result depends on inputs outside the cache key: never cacheable.
    const retried = scope.params.requestState !== undefined || scope.params.inputResponses !== undefined;
    const ttlMs = retried ? 0 : Math.max(0, Math.floor(hint?.ttlMs ?? 0));
    const cacheScope = hint?.scope ?? (scope.extra?.auth ? 'private' : 'public');
    return { ttlMs, cacheScope };
  }
}

/** True when a handler may ask this client for something (elicitation, sampling, roots): what makes a round. */
function mayBeAsked(capabilities: PeerState['clientCapabilities']): boolean {
  return capabilities.elicitation !== undefined || capabilities.sampling !== undefined || capabilities.roots !== undefined;
}

/**
 * A StateBinding whose digest is hashed on first use. A class, not an object literal with a getter:
 * V8 builds such a literal on a slow path (~0.5 µs each, measured), on every per-request tools/call.
 */
class LazyBinding implements StateBinding {
  private hashed?: string;

  constructor(
    readonly principal: string,
    readonly method: string,
    readonly name: string,
    /** The arguments as they were when the request arrived (made canonical only when needed). */
    private readonly args: ArgsSnapshot,
  ) {}

  get digest(): string {
    return (this.hashed ??= digestOfCanonical(stableJson(typeof this.args === 'string' ? JSON.parse(this.args) : this.args)));
  }
}

/**
 * The arguments as they are now, for a round's binding: a copy of an object of scalars (the usual
 * tool call: ~30 ns, against ~400 ns for JSON text), else their JSON text. Either gives the same
 * canonical JSON as the arguments had when taken, whatever a handler does to them afterwards.
 */
export function snapshotOf(args: unknown): ArgsSnapshot {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return JSON.stringify(args);
  const copy: Record<string, string | number | boolean | null> = {};
  for (const key in args) {
    if (!Object.hasOwn(args, key)) continue;
    if (key === '__proto__') return JSON.stringify(args); // an own member of parsed JSON; set here, it would be the copy's prototype
    const value = (args as Record<string, unknown>)[key];
    // Anything JSON would write differently, or that a handler could change inside: taken as JSON text.
    if (!(
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      value === null ||
      (typeof value === 'number' && Number.isFinite(value))
    ))
      return JSON.stringify(args);
    copy[key] = value;
  }
  return copy;
}
