import type { SkillsOptions } from '../skills/skill-catalog';
import type { Implementation } from '../mcp/mcp-types';
import type { Middleware } from '../contracts/middleware';
import type { LogLevel, ServerLogger } from './server-logger';
import type { TaskStore } from '../tasks/task-store';
import type { ScaleOutFactory } from './scale-out';
import type { EraSupport } from '../mcp/eras';
import type { ViewsOptions } from '../views/view.types';
import type { CacheHints } from '../contracts/cache-hints';
import type { PolicyOptions } from '../policies/policy-options';
import { policiesProblem } from '../decorators/policy-checks';
import type { RequestStateOptions } from '../protocol/per-request/request-state';
import type { ExtensionSettings, Extensions } from '../mcp/extensions';
import type { TelemetryOptions } from '../observability/telemetry-options';
import { checkedExtensions } from './declared-extensions';
import { resolveToolSearch, type ToolSearchOptions } from '../protocol/handlers/tool-search';
import { resolveTaskOptions, type ResolvedTaskOptions, type TaskOptions } from '../tasks/task-options';

/** The server's `serverInfo`, plus the `instructions` sent at initialize. */
export interface ServerInfo extends Implementation {
  instructions?: string;
}

/** Options of an application: from its root module's `@McpModule`, overridden by `McpApplication.create`. */
export interface ApplicationOptions {
  /** Name, version and the rest of `serverInfo`, plus `instructions`. */
  server?: ServerInfo;
  /** OpenTelemetry traces, metrics and trace context propagation (default: off, nothing loaded). */
  telemetry?: TelemetryOptions;
  /** Items per page of every list method (default 100). */
  pageSize?: number;
  /** How long a request to the client (elicitation, sampling, roots) may take, in ms (default 60 000). */
  clientRequestTimeoutMs?: number;
  /** How long `close()` waits for requests in flight before cancelling them, in ms (default 5 000). */
  shutdownTimeoutMs?: number;
  /** The server's own log; stderr by default. */
  logger?: ServerLogger;
  /** Entries of the server log below this level are dropped (default: info for the stderr log; all for your `logger`). */
  logLevel?: LogLevel;
  /** The stderr log's format: `text` lines (default) or `json` lines. Ignored with your own `logger`. */
  logFormat?: 'text' | 'json';
  /** Wrapped around every tool, resource, prompt and completion handler, outermost first. */
  middleware?: Middleware[];
  /**
   * Where tasks are kept: a TaskStore class (resolved through the container), an instance, or
   * `{ useClass | useValue | useFactory }`. In-memory when absent.
   */
  taskStore?: TaskStoreOption;
  /** Limits and defaults of task execution. */
  tasks?: TaskOptions;
  /**
   * Call policies (`@RateLimit`, `@Idempotent`, `@Cache`, `@Timeout`, `@Concurrency`): their store,
   * how anonymous callers are told apart, and defaults for every handler.
   */
  policies?: PolicyOptions;
  /**
   * Serve from several instances behind a load balancer: tasks (unless `taskStore` is given), SSE
   * events and sessions all go to shared storage, so that any instance can serve any request.
   * `redisScaleOut({ redis, keyPrefix })` from `mcpkit/redis`.
   */
  scaleOut?: ScaleOutFactory;
  /**
   * Which MCP eras to serve: 'dual' (default) serves 2026-07-28 stateless requests and 2025-11-25
   * (and older) sessions on the same endpoint and stdio process; 'per-request' or 'handshake' serve
   * one only.
   */
  eras?: EraSupport;
  /**
   * How 2026-07-28 multi round-trip requests seal their requestState (HMAC keys and rotation, lifetime,
   * size). Set `secrets` when several instances serve the same clients.
   */
  requestState?: RequestStateOptions;
  /** Caching hints (`ttlMs`, `cacheScope`) of 2026-07-28 results: discover, lists and resource reads. */
  cache?: CacheHints;
  /** Interactive views (MCP Apps): `metadata: 'extension-clients'` sends tools' view metadata only to clients declaring the extension. */
  views?: ViewsOptions;
  /**
   * The extensions this server serves, identifier to settings (`{ 'com.example/thing': { ... } }`):
   * advertised under `capabilities.extensions` in initialize and server/discover. Each module may
   * declare its own; `McpApplication.create` adds to (and per identifier overrides) the modules'.
   * Identifiers follow the `_meta` key rules, prefix required (`InvalidExtensionError` otherwise).
   */
  extensions?: Record<string, ExtensionSettings>;
  /**
   * Agent Skills served over MCP (the `io.modelcontextprotocol/skills` extension): folders of skills,
   * each subfolder with a SKILL.md a skill, read at startup and again when they change. Skills written
   * in code are added with `app.addSkill`.
   */
  skills?: SkillsOptions;
  /**
   * Lists offered from the start, even while empty (`{ tools: true }`): a server whose tools, resources
   * or prompts arrive at runtime (`addTool`, `mount`, `proxy`) then tells the clients that connected
   * before about them (`list_changed`, which a client only hears for lists it was offered at
   * initialize), and answers an empty list rather than -32601 when none are left.
   */
  offer?: Partial<Record<'tools' | 'resources' | 'prompts' | 'completions', boolean>>;
  /** Milliseconds list changes are gathered before one `list_changed` per list goes out (default 10). */
  listChangedDebounceMs?: number;
  /**
   * A plain exception thrown by a tool (not a `ToolError`) shows its message to the model (default
   * false: the model reads "Tool "x" failed with an internal error", and the server log gets the error;
   * the first such error also logs a warning). Turn on only where error messages hold nothing private.
   */
  exposeToolErrors?: boolean;
  /**
   * Structured authorization denials (SEP-2643, a draft): a refusal (a missing scope, a guard, a
   * ForbiddenError) carries `data.authorization` with its reason, a correlation handle the client echoes
   * on its retry (`_meta["io.modelcontextprotocol/authorization-context-id"]`) and the remedies it names.
   * Default false, until the draft settles.
   */
  structuredDenials?: boolean;
  /**
   * Search mode, for large catalogs: `tools/list` answers a search tool and a call tool (and the tools
   * you pin) instead of every tool. `true` takes the defaults. See the tool search guide.
   */
  toolSearch?: ToolSearchOptions | boolean;
}

export type TaskStoreOption =
  | (new (...args: never[]) => TaskStore)
  | TaskStore
  | { useClass: new (...args: never[]) => TaskStore }
  | { useValue: TaskStore }
  | { useFactory: (resolve: <T>(token: unknown) => T) => TaskStore };

export interface ResolvedOptions {
  server: ServerInfo;
  telemetry?: TelemetryOptions;
  scaleOut?: ScaleOutFactory;
  taskStore?: TaskStoreOption;
  tasks: ResolvedTaskOptions;
  policies: PolicyOptions;
  pageSize: number;
  clientRequestTimeoutMs: number;
  shutdownTimeoutMs: number;
  middleware: Middleware[];
  eras: EraSupport;
  requestState?: RequestStateOptions;
  cache?: CacheHints;
  viewMetadata: NonNullable<ViewsOptions['metadata']>;
  extensions: Extensions;
  offer?: ApplicationOptions['offer'];
  listChangedDebounceMs?: number;
  exposeToolErrors: boolean;
  structuredDenials: boolean;
  skills: SkillsOptions;
  toolSearch?: ToolSearchOptions;
}

export function resolveOptions(fromModule: ApplicationOptions, overrides: ApplicationOptions): ResolvedOptions {
  const merged: ApplicationOptions = { ...fromModule, ...overrides };
  const pageSize = merged.pageSize ?? 100;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a positive integer, not ${pageSize}`);
  return {
    server: merged.server ?? { name: 'mcpkit-server', version: '0.0.0' },
    pageSize,
    clientRequestTimeoutMs: merged.clientRequestTimeoutMs ?? 60_000,
    telemetry: merged.telemetry,
    shutdownTimeoutMs: merged.shutdownTimeoutMs ?? 5_000,
    middleware: merged.middleware ?? [],
    taskStore: merged.taskStore,
    scaleOut: merged.scaleOut,
    tasks: resolveTaskOptions(merged.tasks),
    policies: resolvePolicyOptions(merged.policies),
    eras: resolveEras(merged.eras),
    requestState: merged.requestState,
    cache: merged.cache,
    viewMetadata: resolveViewMetadata(merged.views?.metadata),
    offer: merged.offer,
    listChangedDebounceMs: merged.listChangedDebounceMs,
    exposeToolErrors: merged.exposeToolErrors === true,
    structuredDenials: merged.structuredDenials === true,
    skills: merged.skills ?? {},
    toolSearch: resolveToolSearch(merged.toolSearch),
    extensions: {
      ...checkedExtensions(`@McpModule`, fromModule.extensions),
      ...checkedExtensions('McpApplication.create', overrides.extensions),
    },
  };
}

function resolvePolicyOptions(options: PolicyOptions | undefined): PolicyOptions {
  const trustProxy = options?.trustProxy ?? 0;
  if (!Number.isInteger(trustProxy) || trustProxy < 0)
    throw new RangeError(`policies.trustProxy must be a whole number of proxies, not ${trustProxy}`);
  const problem = options?.defaults && policiesProblem(options.defaults);
  if (problem) throw new RangeError(`policies.defaults: ${problem}`);
  return { ...options, trustProxy };
}

function resolveViewMetadata(metadata: ViewsOptions['metadata']): NonNullable<ViewsOptions['metadata']> {
  if (metadata === undefined) return 'all-clients';
  if (metadata !== 'all-clients' && metadata !== 'extension-clients')
    throw new RangeError(`views.metadata must be 'all-clients' or 'extension-clients', not ${String(metadata)}`);
  return metadata;
}

function resolveEras(eras: EraSupport | undefined): EraSupport {
  if (eras === undefined) return 'dual';
  if (eras !== 'dual' && eras !== 'handshake' && eras !== 'per-request')
    throw new RangeError(`eras must be 'dual', 'handshake' or 'per-request', not ${String(eras)}`);
  return eras;
}
