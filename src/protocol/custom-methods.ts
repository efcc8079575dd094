import type { McpContext } from '../context/mcp-context';
import { InvalidDefinitionError } from '../errors/invalid-definition.error';
import type { ServerCapabilities } from '../mcp/mcp-types';
import type { HandlerRef } from '../registry/descriptors';
import { accessFromOptions, type AccessOptions } from '../registry/handler-access';
import { hostileShape } from '../validation/validate-input';
import type { GuardClass } from '../contracts/guard';
import type { MethodHandler } from './request-scope';
import { Call } from './pipeline/call';
import type { Pipelines } from './pipeline/pipelines';
import type { PeerState } from './peer';

/** A method mcpkit does not define (an extension's, an experimental one): its params, the request's context; returns the result object. */
export type CustomMethodHandler = (params: Record<string, unknown>, ctx: McpContext) => unknown;

export interface CustomMethodOptions {
  /**
   * A fragment merged (deeply) into the server's capabilities while the method exists, e.g.
   * `{ experimental: { 'acme/search': {} } }` or `{ extensions: { 'com.acme/x': {} } }`. The members
   * mcpkit sets itself (tools, resources, prompts, completions, logging, tasks) are refused.
   */
  capabilities?: Record<string, unknown>;
  /** Scopes an authenticated caller must hold, as `@RequireScopes` (-32003, or 403 over HTTP, otherwise). */
  scopes?: string[];
  /** Guards that must let the caller in, as `@UseGuards` (resolved through the application's container). */
  guards?: GuardClass[];
  /** Middleware around this method only, inside the application's, as `@UseMiddleware`. */
  middleware?: AccessOptions['middleware'];
  /** Also served to per-request-era (2026-07-28) requests (and its capabilities advertised there); default true. */
  perRequest?: boolean;
}

/** The methods of the MCP specification, served (or sent) by mcpkit itself: never custom. */
const OWN = new Set(['initialize', 'ping', 'completion/complete', 'logging/setLevel', 'server/discover', 'subscriptions/listen']);
const OWN_PREFIXES = [
  'tools/',
  'resources/',
  'prompts/',
  'tasks/',
  'notifications/',
  'sampling/',
  'elicitation/',
  'roots/',
  'completion/',
  'logging/',
  'server/',
  'subscriptions/',
  'skills/',
  'rpc.',
];

/** Client notifications mcpkit handles itself, never handed to `onNotification` listeners: the way in for each. */
const HANDLED_NOTIFICATIONS: Record<string, string> = {
  'notifications/initialized': 'mcpkit completes the handshake itself',
  'notifications/cancelled': 'mcpkit cancels the request itself; a handler sees ctx.signal abort',
  'notifications/roots/list_changed': 'listen to it with app.onRootsListChanged',
};

const OWN_CAPABILITIES = new Set(['tools', 'resources', 'prompts', 'completions', 'logging', 'tasks']);

interface Entry {
  readonly ref: HandlerRef;
  readonly route: MethodHandler;
  readonly capabilities?: Record<string, unknown>;
  readonly perRequest: boolean;
}

export interface CustomMethodsDeps {
  /** The pipelines a method's calls run through (its chain composed when it is added). */
  pipelines: Pipelines;
  logError(message: string, error?: unknown): void;
  /** True when the engine serves `method` itself now (a feature's methods included). */
  isOwn(method: string): boolean;
  /** The capabilities changed: recompute them. */
  changed(): void;
}

/**
 * The raw methods an application added (`app.addMethod`): each served through the same path as the
 * built-in methods (the request's context, the application's middleware, the authorizer, the session's
 * error mapping and telemetry), in both eras unless told otherwise.
 */
export class CustomMethods {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Map<string, Set<(params: Record<string, unknown>, peer: PeerState) => void>>();

  constructor(private readonly deps: CustomMethodsDeps) {}

  /**
   * Listens to a client notification mcpkit does not handle itself; returns the function that stops
   * listening. One it handles is refused, naming the way in for it.
   */
  onNotification(method: string, listener: (params: Record<string, unknown>, peer: PeerState) => void): () => void {
    if (typeof method !== 'string' || method === '' || typeof listener !== 'function')
      throw new InvalidDefinitionError('onNotification', 'expects a method name and a listener function');
    if (Object.hasOwn(HANDLED_NOTIFICATIONS, method))
      throw new InvalidDefinitionError(
        `onNotification(${JSON.stringify(method)})`,
        `no listener would run: ${HANDLED_NOTIFICATIONS[method]}`,
      );
    let set = this.listeners.get(method);
    if (!set) this.listeners.set(method, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(method) === set) this.listeners.delete(method);
    };
  }

  /** A client notification mcpkit does not handle: its listeners run; one that throws is logged, the rest still run. */
  notified(method: string, params: Record<string, unknown>, peer: PeerState): void {
    for (const listener of this.listeners.get(method) ?? []) {
      try {
        listener(params, peer);
      } catch (error) {
        this.deps.logError(`A listener of ${method} threw`, error);
      }
    }
  }

  add(method: string, handler: CustomMethodHandler, options: CustomMethodOptions = {}): void {
    const what = `Method ${JSON.stringify(method)}`;
    if (typeof method !== 'string' || method.trim() === '' || method !== method.trim())
      throw new InvalidDefinitionError(what, 'a method name is a non-empty string without surrounding spaces');
    if (OWN.has(method) || OWN_PREFIXES.some((p) => method.startsWith(p)) || this.deps.isOwn(method)) {
      throw new InvalidDefinitionError(what, 'is defined by MCP and served by mcpkit itself; pick a name of your own (e.g. "acme/search")');
    }
    if (this.entries.has(method)) throw new InvalidDefinitionError(what, 'was already added (removeMethod it first)');
    if (typeof handler !== 'function') throw new InvalidDefinitionError(what, 'the handler must be a function (params, ctx) => result');
    const access = accessFromOptions({ kind: 'method', name: method }, options, (problem) => new InvalidDefinitionError(what, problem));
    const caps = options.capabilities;
    if (caps !== undefined && !isPlainObject(caps))
      throw new InvalidDefinitionError(what, 'capabilities must be an object (a fragment of ServerCapabilities)');
    const odd = caps === undefined ? undefined : hostileShape(caps);
    if (odd) throw new InvalidDefinitionError(what, `capabilities: ${odd}`);
    const taken = Object.keys(caps ?? {}).filter((k) => OWN_CAPABILITIES.has(k));
    if (taken.length > 0)
      throw new InvalidDefinitionError(
        what,
        `capabilities may not set ${taken.join(', ')}: mcpkit derives them from what the server offers`,
      );
    const ref: HandlerRef = {
      kind: 'method',
      provider: undefined,
      method,
      where: method,
      contextFirst: false,
      access,
      run: (args) => handler(args[0] as Record<string, unknown>, args[1] as McpContext),
    };
    this.entries.set(method, {
      ref,
      route: (params, scope) => this.deps.pipelines.run(new Call(ref, scope, method, params)),
      capabilities: caps && structuredClone(caps),
      perRequest: options.perRequest !== false,
    });
    this.deps.pipelines.prepare([ref]);
    this.deps.changed();
  }

  remove(method: string): boolean {
    if (!this.entries.delete(method)) return false;
    this.deps.changed();
    return true;
  }

  /** The route of a custom method in this era, if there is one. */
  handler(method: string, perRequest: boolean): MethodHandler | undefined {
    const entry = this.entries.get(method);
    return entry && (!perRequest || entry.perRequest) ? entry.route : undefined;
  }

  /** `caps` with the fragments of the methods served in this era merged in (a value already there stays). */
  merge(caps: ServerCapabilities, perRequest: boolean): ServerCapabilities {
    let merged = caps as Record<string, unknown>;
    for (const entry of this.entries.values()) {
      if (entry.capabilities && (!perRequest || entry.perRequest)) merged = mergeUnder(merged, entry.capabilities);
    }
    return merged;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `base` with `extra` merged under it: objects are merged member by member, any other value of `base` stays. */
function mergeUnder(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const own = out[key];
    if (own === undefined) out[key] = structuredClone(value);
    else if (isPlainObject(own) && isPlainObject(value)) out[key] = mergeUnder(own, value);
  }
  return out;
}
