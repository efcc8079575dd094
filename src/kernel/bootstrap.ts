import type { DependencyContainer, InjectionToken } from 'tsyringe';
import type { CanActivate } from '../contracts/guard';
import type { ClassType } from '../metadata/records';
import { ProtocolEngine } from '../protocol/protocol-engine';
import { listenHandler } from '../protocol/per-request/subscriptions-listen';
import { createTelemetry } from '../observability/telemetry';
import type { RequestTelemetry } from '../observability/telemetry-options';
import type { Registry } from '../registry/registry';
import { assembleRegistry, buildDecorated, type DecoratedSkill, type ProviderEntry } from '../registry/registry.builder';
import { TaskManager } from '../tasks/task-manager';
import type { TaskStore } from '../tasks/task-store';
import { tracedTaskStore } from '../tasks/traced-task-store';
import { tasksFeature } from '../tasks/tasks.feature';
import { SkillCatalog, type SkillDefinition } from '../skills/skill-catalog';
import type { McpContext } from '../context/mcp-context';
import { SkillServing } from './skill-serving';
import { skillsFeature } from '../skills/skills.feature';
import { type ApplicationOptions, resolveOptions, type ResolvedOptions } from './application-options';
import { Definitions } from './definitions';
import { kernelStages } from './kernel.stages';
import { resolveModuleGraph } from './module-graph';
import { applicationRoot } from './peer-copies';
import { register, taskStoreProvider } from './providers';
import { type ScaleOut, throttled } from './scale-out';
import { applicationLogger, type ServerLogger } from './server-logger';
import { TASK_STORE } from './tokens';
import { CallPolicies } from '../policies/call-policies';
import { InMemoryPolicyStore } from '../policies/in-memory.policy-store';
import { addressKey } from '../policies/policy-keys';

/** The parts an application is made of, built once by `McpApplication.create`. */
export interface Parts {
  readonly container: DependencyContainer;
  readonly registry: Registry;
  readonly engine: ProtocolEngine;
  readonly options: ResolvedOptions;
  readonly logger: ServerLogger;
  readonly tasks: TaskManager;
  /** Rate limits, idempotency, the result cache, timeouts and concurrency limits, with their store. */
  readonly policies: CallPolicies;
  readonly scaleOut: ScaleOut | undefined;
  readonly definitions: Definitions;
  readonly catalog: SkillCatalog;
  /** The skills: folders read at start and followed, skills added in code. */
  readonly skills: SkillServing;
  /** What other entry points hook into: released when the application closes (mounts, proxies), told of resource updates (the applications it is mounted in). */
  readonly hooks: { readonly closing: Set<() => Promise<void>>; readonly resourceUpdates: Set<(uri: string) => void> };
}

/** The application's parts from its root module, built and wired; its providers not resolved yet. */
export function assembleParts(module: ClassType, overrides: ApplicationOptions): { parts: Parts; entries: ProviderEntry[] } {
  const graph = resolveModuleGraph(module);
  const options = resolveOptions(graph.root, overrides);
  const logger = applicationLogger({ ...graph.root, ...overrides }, options.server.name);
  const container = applicationRoot(logger).createChildContainer();
  const transient = new Set<unknown>();
  const entries = graph.providers.map((p) => register(container, p, transient)).filter((e): e is ProviderEntry => e !== undefined);
  const decorated = buildDecorated(entries);
  const registry = Object.assign(assembleRegistry(decorated, []), { viewMetadata: options.viewMetadata });
  const telemetry = createTelemetry(options.telemetry);
  const scaleOut = options.scaleOut?.({
    onError: throttled((e) => logger.error('Redis connection error (repeats within 10 s are not logged)', e), 10_000),
    telemetry,
  });
  const policies = new CallPolicies({
    store: options.policies.store ?? scaleOut?.policyStore?.() ?? new InMemoryPolicyStore(),
    anonymous: options.policies.anonymousKey ?? addressKey(options.policies.trustProxy ?? 0),
    defaults: options.policies.defaults,
    logError: (message, error) => logger.error(message, error),
    telemetry,
  });
  const storeOption = options.taskStore ?? scaleOut?.taskStore();
  container.register(TASK_STORE, taskStoreProvider(storeOption));
  // The store is resolved now: a store that cannot be made fails create.
  const tasks = new TaskManager(
    tracedStore(container.resolve<TaskStore>(TASK_STORE), telemetry),
    options.tasks,
    (message, error) => logger.error(message, error),
    options.clientRequestTimeoutMs,
    scaleOut?.taskBus(),
  );
  const catalog = new SkillCatalog(options.skills);
  for (const skill of decorated.skills) catalog.add(decoratedSkill(skill, container));
  const engine = new ProtocolEngine({
    features: (env) => [
      tasksFeature(tasks, env.registry, env.pageSize, env.subscriptions),
      skillsFeature(catalog, { pageSize: env.pageSize, authorizer: env.authorizer, cache: options.skills.cache ?? options.cache?.lists }),
    ],
    registry,
    serverInfo: stripInstructions(options.server),
    instructions: options.server.instructions,
    pageSize: options.pageSize,
    toolSearch: options.toolSearch && { options: options.toolSearch, store: policies.store },
    clientRequestTimeoutMs: options.clientRequestTimeoutMs,
    stages: { ...policies.stages(), ...kernelStages(container, transient, options.middleware) },
    resolveGuard: (guard) => container.resolve(guard as unknown as InjectionToken<CanActivate>),
    logError: (message, error) => logger.error(message, error),
    logWarn: (message) => logger.warn(message),
    exposeToolErrors: options.exposeToolErrors,
    structuredDenials: options.structuredDenials,
    eras: options.eras,
    extensions: options.extensions,
    requestState: { loadSecret: scaleOut?.requestStateKey && (() => scaleOut.requestStateKey!()), ...options.requestState },
    cache: options.cache,
    telemetry,
    cachedResults: policies,
    offer: options.offer,
    listChangedDebounceMs: options.listChangedDebounceMs,
    perRequestHandlers: (e) => ({
      'subscriptions/listen': (params, scope) =>
        listenHandler({
          hub: e.subscriptions,
          registry,
          authorizer: e.authorizer,
          capabilities: () => e.capabilities,
        })(params, scope),
    }),
  });
  engine.subscriptions.attach(scaleOut?.changeBus?.());
  let definitions: Definitions | undefined;
  let skills: SkillServing | undefined;
  const parts: Parts = {
    container,
    registry,
    engine,
    options,
    logger,
    tasks,
    policies,
    scaleOut,
    catalog,
    hooks: { closing: new Set(), resourceUpdates: new Set() },
    get skills() {
      return (skills ??= new SkillServing({
        catalog,
        // Made when skills first change the registry (an application without skills never makes it here).
        definitions: { contribute: (source, contribution) => parts.definitions.contribute(source, contribution) },
        engine,
        logger,
        watch: options.skills.watch ?? underDev(),
      }));
    },
    /** Runtime registration and mounting: made by the first that needs them. */
    get definitions() {
      return (definitions ??= new Definitions(registry, container, entries, transient, decorated, engine.custom));
    },
  };
  return { parts, entries };
}

/** A `@Skill` method as a skill in code: its instructions are what the method returns, called on its provider. */
function decoratedSkill({ handler, options }: DecoratedSkill, container: DependencyContainer): SkillDefinition {
  const { scopes, guards, middleware } = handler.access;
  return {
    ...options,
    scopes: [...scopes],
    guards: [...guards],
    middleware: [...middleware],
    instructions: async (ctx) => {
      const provider = container.resolve(handler.provider as InjectionToken<Record<string, (ctx: McpContext) => unknown>>);
      const markdown = await provider[handler.method](ctx);
      if (typeof markdown !== 'string') throw new TypeError(`${handler.where} must return the skill's markdown as a string`);
      return markdown;
    },
  };
}

/** The task store with spans and a gauge when telemetry records; without telemetry the store is served as is. */
function tracedStore(store: TaskStore, telemetry: RequestTelemetry | undefined): TaskStore {
  return telemetry?.recording ? tracedTaskStore(store, telemetry) : store;
}

const stripInstructions = ({ instructions: _instructions, ...info }: ResolvedOptions['server']) => info;

/** Whether this process runs under `mcpkit dev`, which sets `MCPKIT_DEV=1` (no `process` on Workers: not dev). */
const underDev = (): boolean => globalThis.process?.env?.MCPKIT_DEV === '1';
