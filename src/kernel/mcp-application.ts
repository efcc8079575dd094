import type { InjectionToken } from 'tsyringe';
import type { SessionInfo } from '../context/mcp-context';
import type { ClassType, Provider } from '../metadata/records';
import type { CustomMethodHandler, CustomMethodOptions } from '../protocol/custom-methods';
import type { DynamicPrompt, DynamicResource, DynamicTool } from '../registry/dynamic-definitions';
import type { PrimitiveKind } from '../registry/registry';
import type { SkillDefinition } from '../skills/skill-catalog';
import type { ClientTransport } from '../transports/in-memory.transport';
import type { MessageTransport } from '../transports/message-transport';
import type { ApplicationOptions } from './application-options';
import { keepInternals } from './app-internals';
import { assembleParts, type Parts } from './bootstrap';

import { holdConsoleOnStderr } from './console-redirect';
import { sessionInfo } from './session-info';
import type { ConnectionHandle, ConnectOptions } from './listen-options';
import { resolveAll } from './providers';
import { type FrontDoor, Serving } from './serving';
import { MCP_APPLICATION, MCP_LOGGER, MCP_OPTIONS } from './tokens';
import { unlistedHandlerClassWarnings } from './unlisted-classes';
import { creationObserver } from './entry-inspection';

export { internalsOf, registryOf } from './app-internals';

/**
 * One MCP server application: its own DI container, registry and protocol engine, served over any
 * number of transports. Two applications in one process share nothing.
 */
export class McpApplication {
  private readonly serving: Serving;
  private closing?: Promise<void>;

  private constructor(private readonly parts: Parts) {
    const { engine, logger, options, tasks, scaleOut } = parts;
    const isClosing = () => this.closing !== undefined;
    this.serving = new Serving({
      engine,
      get taskStore() {
        return tasks.store;
      },
      scaleOut,
      logger,
      shutdownTimeoutMs: options.shutdownTimeoutMs,
      get closing() {
        return isClosing();
      },
      close: () => this.close(),
    });
    keepInternals(this, parts, this.serving);
  }

  /**
   * Builds an application from a module class decorated with `@McpModule`; `overrides` take precedence
   * over the module's options. Rejects with a named definition error when a definition is wrong. @group Creating
   */
  static async create(module: ClassType, overrides: ApplicationOptions = {}): Promise<McpApplication> {
    const observe = creationObserver();
    if (observe) {
      // mcpkit inspect / call loading an entry that builds its own application: listed, never served.
      observe(module);
      return new Promise<McpApplication>(() => undefined);
    }
    // Provider constructors run in here; whether stdio will be served is not known yet, so their
    // console output goes to stderr, where it cannot corrupt a stdio stream.
    const release = holdConsoleOnStderr();
    let app: McpApplication;
    try {
      app = McpApplication.build(module, overrides);
    } finally {
      release();
    }
    // A skill folder that breaks a rule fails create, naming the skill.
    await app.parts.skills.start().catch(async (error: unknown) => {
      await app.close().catch(() => undefined);
      throw error;
    });
    return app;
  }

  private static build(module: ClassType, overrides: ApplicationOptions): McpApplication {
    const { parts, entries } = assembleParts(module, overrides);
    const { container, logger, options } = parts;
    const app = new McpApplication(parts);
    container.register(MCP_APPLICATION, { useValue: app });
    container.register(MCP_OPTIONS, { useValue: options });
    container.register(MCP_LOGGER, { useValue: logger });
    resolveAll(container, entries);
    for (const warning of unlistedHandlerClassWarnings()) logger.warn(warning);
    return app;
  }

  /**
   * The instance the application's container holds for `token`: a provider class, or one of the
   * application's tokens (`MCP_APPLICATION`, `MCP_OPTIONS`, `MCP_LOGGER`, `TASK_STORE`). @group Services
   */
  get<T>(token: InjectionToken<T>): T {
    return this.parts.container.resolve(token);
  }

  // Definitions: what is served, changed at runtime.

  /**
   * Shows again a tool (by name), resource (by URI), template (by pattern) or prompt (by name) hidden with
   * `disable`; clients are told the list changed. False when there is no such primitive. @group Defining
   */
  enable(kind: PrimitiveKind, key: string): boolean {
    return this.parts.definitions.enable(kind, key);
  }

  /**
   * Hides a tool (by name), resource (by URI), template (by pattern) or prompt (by name) until `enable`
   * shows it again; clients are told the list changed. False when there is no such primitive. @group Defining
   */
  disable(kind: PrimitiveKind, key: string): boolean {
    return this.parts.definitions.disable(kind, key);
  }

  /**
   * Adds providers at runtime: they are registered in the container, the registry is rebuilt (with
   * the same definition checks as at bootstrap) and clients are told which lists changed. @group Defining
   */
  addProviders(...providers: Provider[]): void {
    this.parts.definitions.addProviders(...providers);
  }

  /**
   * Registers a tool from a name, a JSON Schema and a handler. Its arguments are validated against
   * the schema (compiled once, here); a schema or name mcpkit cannot serve, or a name already taken,
   * throws a named definition error and changes nothing. @group Defining
   */
  addTool(definition: DynamicTool): void {
    this.parts.definitions.addTool(definition);
  }

  /** Replaces some members of a tool registered with `addTool` (its name included); false when there is none. @group Defining */
  updateTool(name: string, changes: Partial<DynamicTool>): boolean {
    return this.parts.definitions.updateTool(name, changes);
  }

  /** Removes a tool: one registered at runtime (it can be added again), or a decorated one (for good); false when there is none. @group Defining */
  removeTool(name: string): boolean {
    return this.parts.definitions.removeTool(name);
  }

  /** Registers a resource (`uri`) or resource template (`uriTemplate`) with its handler. @group Defining */
  addResource(definition: DynamicResource): void {
    this.parts.definitions.addResource(definition);
  }

  /** Replaces some members of a resource or template registered with `addResource`, found by URI or template. @group Defining */
  updateResource(uriOrTemplate: string, changes: Partial<DynamicResource>): boolean {
    return this.parts.definitions.updateResource(uriOrTemplate, changes);
  }

  /** Removes a resource (by URI) or template (by its pattern), registered at runtime or decorated; false when there is none. @group Defining */
  removeResource(uriOrTemplate: string): boolean {
    return this.parts.definitions.removeResource(uriOrTemplate);
  }

  /** Serves a skill written in code (see SkillDefinition); one breaking a rule or taking a served URI throws InvalidDefinitionError. @group Defining */
  addSkill(definition: SkillDefinition): void {
    this.parts.skills.add(definition);
  }

  /** Stops serving a skill added with `addSkill`, by the URI of its SKILL.md; false when there is none. @group Defining */
  removeSkill(uri: string): boolean {
    return this.parts.skills.remove(uri);
  }

  /** Registers a prompt from its arguments and a handler (completers optional). @group Defining */
  addPrompt(definition: DynamicPrompt): void {
    this.parts.definitions.addPrompt(definition);
  }

  /** Replaces some members of a prompt registered with `addPrompt`; false when there is none. @group Defining */
  updatePrompt(name: string, changes: Partial<DynamicPrompt>): boolean {
    return this.parts.definitions.updatePrompt(name, changes);
  }

  /** Removes a prompt: one registered at runtime (it can be added again), or a decorated one (for good); false when there is none. @group Defining */
  removePrompt(name: string): boolean {
    return this.parts.definitions.removePrompt(name);
  }

  /**
   * Serves a method mcpkit does not define (an extension's, an experimental one) with `handler(params,
   * ctx)`, whose returned object is the JSON-RPC result (anything else is an internal error, logged).
   * It runs like the built-in methods: the request's McpContext, the application's middleware (kind
   * 'method'), `scopes` checked by the authorizer, an McpError thrown is the answer and any other error
   * is -32603. `capabilities` is merged into the server's while the method exists. A method of MCP's
   * own, an empty name or one already added throws InvalidDefinitionError. @group Defining
   */
  addMethod(method: string, handler: CustomMethodHandler, options?: CustomMethodOptions): void {
    this.parts.definitions.addMethod(method, handler, options);
  }

  /** Stops serving a method added with `addMethod` (it is -32601 again, its capabilities gone); false when there is none. @group Defining */
  removeMethod(method: string): boolean {
    return this.parts.definitions.removeMethod(method);
  }

  /**
   * Listens to a notification from clients that mcpkit does not handle itself (an extension's, a custom
   * one), in both eras; `session` tells who sent it. Returns the function that stops listening. One
   * mcpkit handles throws InvalidDefinitionError naming its way in (roots changes: `onRootsListChanged`). @group Events
   */
  onNotification(method: string, listener: (params: Record<string, unknown>, session: SessionInfo) => void): () => void {
    return this.parts.definitions.onNotification(method, listener);
  }

  /** Calls `listener` when a client says its roots changed; returns the function that stops it. @group Events */
  onRootsListChanged(listener: (session: SessionInfo) => void): () => void {
    return this.parts.engine.onRootsListChanged((peer) => listener(sessionInfo(peer)));
  }

  /**
   * Sends `notifications/resources/updated` to the sessions subscribed to `uri` and the listen streams
   * naming it (on every instance), and to an application this one is mounted in (under its prefix). @group Events
   */
  notifyResourceUpdated(uri: string): Promise<void> {
    for (const listener of this.parts.hooks.resourceUpdates) listener(uri);
    return this.parts.engine.notifyResourceUpdated(uri);
  }

  // Serving: the front doors.

  /**
   * Serves one client over a message transport of your own (a WebSocket, an IPC channel: see
   * `MessageTransport`); the handle tells its state and closes it. For a client in this process, use
   * `connectInMemory`; for stdio, `listen(stdio())`. @group Serving
   */
  connect(transport: MessageTransport, options?: ConnectOptions): ConnectionHandle {
    return this.serving.connect(transport, options);
  }

  /**
   * Serves a client in this process (a test, an agent embedding the server) as the local user; the
   * returned transport is the client's end, for `McpTestClient`, `McpClient` or the official SDK `Client`. @group Serving
   */
  connectInMemory(options?: ConnectOptions): ClientTransport {
    return this.serving.connectInMemory(options);
  }

  /**
   * Starts serving through a front door: `stdio()` from `mcpkit/stdio` (the application then closes when
   * stdin ends), `httpServer({ port })` from `mcpkit/http` (resolves with where it listens: `url`,
   * `port`; rejects with `AddressInUseError` when the address is taken). For a handler your runtime
   * calls, see `fetchHandler` and `lambdaHandler` (`mcpkit/fetch`) and `httpTransport` (`mcpkit/http`). @group Serving
   */
  listen<R>(door: FrontDoor<R>): R {
    return this.serving.open(door);
  }

  /** Closes the application on SIGINT/SIGTERM (or `signals`), then exits the process; returns the application. @group Closing */
  enableShutdownHooks(signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM']): this {
    for (const signal of signals) {
      process.once(signal, () => {
        this.close().then(
          () => process.exit(0),
          (error) => {
            this.parts.logger.error('Could not close the application cleanly', error);
            process.exit(1);
          },
        );
      });
    }
    return this;
  }

  /**
   * Stops accepting messages, waits (up to `shutdownTimeoutMs`) for requests in flight, cancels the
   * rest, closes every session and transport, and disposes the container. @group Closing
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const { engine, tasks, policies, scaleOut, container } = this.parts;
      this.serving.stopAccepting();
      await this.parts.skills.close();
      // Listen streams end first, with their final result (graceful closure), so the drain does not wait for them.
      await engine.subscriptions.close();
      await this.serving.drain(() => engine.inflightCount);
      // What was mounted or proxied in (mcpkit/compose) is let go.
      for (const release of this.parts.hooks.closing) await release();
      await tasks.close();
      engine.closeAllSessions();
      await this.serving.close();
      await Promise.all([tasks.store.close(), policies.store.close?.()]);
      await scaleOut?.close();
      await container.dispose();
    })();
    return this.closing;
  }
}
