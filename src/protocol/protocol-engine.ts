import type { HandlerRef } from '../registry/descriptors';
import type { ListKind, Registry } from '../registry/registry';
import type { Implementation, ServerCapabilities } from '../mcp/mcp-types';
import type { MethodHandler } from './request-scope';
import { completionHandlers } from './handlers/completion.handlers';
import type { HandlerEnv } from './handlers/handler-env';
import { lifecycleHandlers } from './handlers/lifecycle.handlers';
import { promptsHandlers } from './handlers/prompts.handlers';
import { resourcesHandlers } from './handlers/resources.handlers';
import { toolsHandlers } from './handlers/tools.handlers';
import { tasksHandlers } from './handlers/tasks.handlers';
import type { TaskManager } from '../tasks/task-manager';
import { MessageSink, ServerSession, SessionHost, SessionOptions } from './server-session';

export interface ProtocolEngineOptions {
  registry: Registry;
  /** How long list changes are gathered before clients are told, in ms. */
  listChangedDebounceMs?: number;
  serverInfo: Implementation;
  instructions?: string;
  pageSize: number;
  clientRequestTimeoutMs: number;
  invoke(ref: HandlerRef, args: unknown[]): Promise<unknown>;
  logError(message: string, error?: unknown): void;
  /** Runs task-augmented requests; tasks are offered when some tool supports them. */
  tasks?: TaskManager;
}

/**
 * The MCP server side of one application: the method -> handler map and capabilities derived from
 * the registry, built once, and shared by every session of every transport.
 */
export class ProtocolEngine implements SessionHost {
  readonly handlers: ReadonlyMap<string, MethodHandler>;
  readonly capabilities: ServerCapabilities;
  readonly clientRequestTimeoutMs: number;
  private readonly sessions = new Set<ServerSession>();
  private readonly changedLists = new Set<ListKind>();
  private listChangedTimer?: NodeJS.Timeout;
  private readonly rootsListeners = new Set<(session: ServerSession) => void>();

  constructor(private readonly options: ProtocolEngineOptions) {
    this.clientRequestTimeoutMs = options.clientRequestTimeoutMs;
    this.capabilities = deriveCapabilities(options.registry, options.tasks !== undefined);
    const env: HandlerEnv = {
      registry: options.registry,
      serverInfo: options.serverInfo,
      instructions: options.instructions,
      capabilities: this.capabilities,
      pageSize: options.pageSize,
      invoke: options.invoke,
      logError: options.logError,
      tasks: this.capabilities.tasks ? options.tasks : undefined,
    };
    const map: Record<string, MethodHandler> = { ...lifecycleHandlers(env) };
    if (this.capabilities.tools) Object.assign(map, toolsHandlers(env));
    if (this.capabilities.resources) Object.assign(map, resourcesHandlers(env));
    if (this.capabilities.prompts) Object.assign(map, promptsHandlers(env));
    if (this.capabilities.completions) Object.assign(map, completionHandlers(env));
    if (env.tasks) Object.assign(map, tasksHandlers(env, env.tasks));
    this.handlers = new Map(Object.entries(map));
    options.registry.onChange((list) => this.listChanged(list));
  }

  /** Tells every subscribed session that a resource changed. */
  async notifyResourceUpdated(uri: string): Promise<void> {
    const targets = [...this.sessions].filter((s) => s.subscriptions.has(uri));
    await Promise.all(targets.map((s) => s.notify('notifications/resources/updated', { uri })));
  }

  /** Listens to `notifications/roots/list_changed` from any client; returns the function that stops it. */
  onRootsListChanged(listener: (session: ServerSession) => void): () => void {
    this.rootsListeners.add(listener);
    return () => this.rootsListeners.delete(listener);
  }

  rootsListChanged(session: ServerSession): void {
    for (const l of this.rootsListeners) l(session);
  }

  /** Gathers list changes for a moment, then notifies every initialized session once per list. */
  private listChanged(list: ListKind): void {
    this.changedLists.add(list);
    if (this.listChangedTimer) return;
    this.listChangedTimer = setTimeout(() => {
      this.listChangedTimer = undefined;
      const lists = [...this.changedLists];
      this.changedLists.clear();
      for (const session of this.sessions) {
        if (!session.initialized || session.closed) continue;
        for (const l of lists) if (this.capabilities[l]) void session.notify(`notifications/${l}/list_changed`, undefined);
      }
    }, this.options.listChangedDebounceMs ?? 10);
    this.listChangedTimer.unref?.();
  }

  /** Opens a session whose outbound messages go to `sink`. */
  createSession(sink: MessageSink, options?: SessionOptions): ServerSession {
    const session = new ServerSession(this, sink, options);
    this.sessions.add(session);
    return session;
  }

  onSessionClosed(session: ServerSession): void {
    this.sessions.delete(session);
  }

  logError(message: string, error?: unknown): void {
    this.options.logError(message, error);
  }

  /** Requests in flight across all sessions. */
  get inflightCount(): number {
    let n = 0;
    for (const s of this.sessions) n += s.inflightCount;
    return n;
  }

  closeAllSessions(): void {
    for (const s of [...this.sessions]) s.close();
    clearTimeout(this.listChangedTimer);
  }
}

function deriveCapabilities(registry: Registry, tasks: boolean): ServerCapabilities {
  const caps: ServerCapabilities = { logging: {} };
  if (tasks && registry.hasTaskTools) {
    caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } }, responses: { modes: ['task', 'immediate', 'streaming'] } };
  }
  if (registry.hasTools) caps.tools = { listChanged: true };
  if (registry.hasResources) caps.resources = { subscribe: true, listChanged: true };
  if (registry.hasPrompts) caps.prompts = { listChanged: true };
  if (registry.hasCompletions) caps.completions = {};
  return caps;
}
