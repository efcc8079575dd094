import type { DependencyContainer, InjectionToken } from 'tsyringe';
import type { CanActivate } from '../contracts/guard';
import type { SessionInfo } from '../context/mcp-context';
import { AddressInUseError } from '../errors/address-in-use.error';
import type { ClassType } from '../metadata/records';
import type { JsonRpcMessage } from '../mcp/json-rpc';
import type { Invoke } from '../protocol/tool-invoker';
import { ProtocolEngine } from '../protocol/protocol-engine';
import { createTelemetry } from '../protocol/telemetry/telemetry';
import { tracedTaskStore } from '../tasks/traced-task-store';
import { withTracedEventStore } from '../transports/http/traced-event-store';
import { listenHandler } from '../protocol/modern/subscriptions-listen';
import type { HttpOptions } from '../transports/http/http-options';
import type { HttpTransport } from '../transports/http/http-handler.types';
import type { Registry } from '../registry/registry';
import { ComposedSurface } from './composed-surface';
import { sessionInfo } from './application-surface';
import { assembleRegistry, buildDecorated, type ProviderEntry } from '../registry/registry.builder';
import { type ClientTransport, createInMemoryTransportPair } from '../transports/in-memory.transport';
import type { MessageTransport } from '../transports/message-transport';
import { StdioTransport } from '../transports/stdio.transport';
import { verifyStdioToken } from '../auth/stdio-auth';
import { connectionAuth } from '../auth/principal';
import { type ApplicationOptions, resolveOptions, type ResolvedOptions } from './application-options';
import { type ConnectionHandle, type ConnectOptions, handleOf, type ListenOptions, type ListenResult, type Served } from './listen-options';
import { register, resolveAll, taskStoreProvider } from './providers';
import { handlerInvoker } from './handler-invoker';
import { resolveModuleGraph } from './module-graph';
import { holdConsoleOnStderr, redirectConsoleToStderr } from './console-redirect';
import { applicationLogger, type ServerLogger } from './server-logger';
import { messageLogFields, withLogFields } from './log-context';
import { MCP_APPLICATION, MCP_LOGGER, MCP_OPTIONS, TASK_STORE } from './tokens';
import { type ScaleOut, throttled } from './scale-out';
import { unlistedHandlerClassWarnings } from './unlisted-classes';
import { applicationRoot } from './peer-copies';
import { TaskManager } from '../tasks/task-manager';
import { tasksFeature } from '../tasks/tasks.feature';
import type { TaskStore } from '../tasks/task-store';

/**
 * One MCP server application: its own DI container, registry and protocol engine, served over any
 * number of transports. Two applications in one process share nothing.
 */
export class McpApplication extends ComposedSurface {
  private readonly served = new Set<Served>();
  private readonly httpServed = new WeakMap<HttpTransport, Served>();
  private closing?: Promise<void>;

  private constructor(
    /** The application's child container; providers are singletons in it unless they ask otherwise. */
    readonly container: DependencyContainer,
    readonly registry: Registry,
    private readonly engine: ProtocolEngine,
    readonly options: ResolvedOptions,
    protected readonly logger: ServerLogger,
    protected readonly entries: ProviderEntry[],
    protected readonly transient: Set<unknown>,
    private readonly tasks: TaskManager,
    private readonly scaleOut: ScaleOut | undefined,
    protected readonly invoke: Invoke,
  ) {
    super();
    this.customMethods = engine.custom;
  }

  protected readonly customMethods: ProtocolEngine['custom'];

  /** Builds an application from a module class decorated with `@McpModule`. */
  static async create(module: ClassType, overrides: ApplicationOptions = {}): Promise<McpApplication> {
    // Provider constructors run in here; whether stdio will be served is not known yet, so their
    // console output goes to stderr, where it cannot corrupt a stdio stream.
    const release = holdConsoleOnStderr();
    try {
      return McpApplication.build(module, overrides);
    } finally {
      release();
    }
  }

  private static build(module: ClassType, overrides: ApplicationOptions): McpApplication {
    const graph = resolveModuleGraph(module);
    const options = resolveOptions(graph.root, overrides);
    const logger = applicationLogger({ ...graph.root, ...overrides }, options.server.name);
    const container = applicationRoot(logger).createChildContainer();
    const transient = new Set<unknown>();
    const entries = graph.providers.map((p) => register(container, p, transient)).filter((e): e is ProviderEntry => e !== undefined);
    const parts = buildDecorated(entries),
      registry = Object.assign(assembleRegistry(parts, []), { viewMetadata: options.viewMetadata });
    const invoke = handlerInvoker(container, transient, options.middleware);
    const telemetry = createTelemetry(options.telemetry);
    const scaleOut = options.scaleOut?.({
      onError: throttled((e) => logger.error('Redis connection error (repeats within 10 s are not logged)', e), 10_000),
      telemetry,
    });
    container.register(TASK_STORE, taskStoreProvider(options.taskStore ?? scaleOut?.taskStore()));
    const store = tracedTaskStore(container.resolve<TaskStore>(TASK_STORE), telemetry);
    const tasks = new TaskManager(
      store,
      options.tasks,
      (message, error) => logger.error(message, error),
      options.clientRequestTimeoutMs,
      scaleOut?.taskBus(),
    );
    const engine = new ProtocolEngine({
      features: (env) => [tasksFeature(tasks, env.tools, env.pageSize, env.subscriptions)],
      registry,
      serverInfo: stripInstructions(options.server),
      instructions: options.server.instructions,
      pageSize: options.pageSize,
      clientRequestTimeoutMs: options.clientRequestTimeoutMs,
      invoke,
      resolveGuard: (guard) => container.resolve(guard as unknown as InjectionToken<CanActivate>),
      logError: (message, error) => logger.error(message, error),
      eras: options.eras,
      extensions: options.extensions,
      requestState: { loadSecret: scaleOut?.requestStateKey && (() => scaleOut.requestStateKey!()), ...options.requestState },
      cache: options.cache,
      telemetry,
      offer: options.offer,
      listChangedDebounceMs: options.listChangedDebounceMs,
      modernHandlers: (e) => ({
        'subscriptions/listen': listenHandler({
          hub: e.subscriptions,
          registry,
          authorizer: e.authorizer,
          capabilities: () => e.capabilities,
        }),
      }),
    });
    engine.subscriptions.attach(scaleOut?.changeBus?.());
    const app = new McpApplication(container, registry, engine, options, logger, entries, transient, tasks, scaleOut, invoke);
    app.decoratedParts = parts;
    try {
      for (const [prefix, mounted] of Object.entries(graph.root.mounts ?? {})) app.mount(prefix, mounted);
    } catch (error) {
      void app.close().catch((e) => logger.error('Could not close an application that failed to mount a module', e));
      throw error;
    }
    container.register(MCP_APPLICATION, { useValue: app });
    container.register(MCP_OPTIONS, { useValue: options });
    container.register(MCP_LOGGER, { useValue: logger });
    resolveAll(container, entries);
    for (const warning of unlistedHandlerClassWarnings()) logger.warn(warning);
    return app;
  }

  /**
   * Serves another module's (or application's) tools, resources and prompts under `prefix`: names
   * become `prefix_name`, URIs `scheme://prefix/rest`. A module is built into its own application
   * (closed with this one); a collision throws a named definition error. Returns the mounted application.
   */
  mount(prefix: string, target: ClassType | McpApplication): McpApplication {
    const app = target instanceof McpApplication ? target : McpApplication.build(target, {});
    this.mountApplication(prefix, app, app !== target);
    return app;
  }

  protected notifySubscribers(uri: string): Promise<void> {
    return this.engine.notifyResourceUpdated(uri);
  }

  /** Calls `listener` when a client says its roots changed; returns the function that stops it. */
  onRootsListChanged(listener: (session: SessionInfo) => void): () => void {
    return this.engine.onRootsListChanged((peer) => listener(sessionInfo(peer)));
  }

  /** The application's TaskStore (the `taskStore` option, or the in-memory default). */
  get taskStore(): TaskStore {
    return this.tasks.store;
  }

  /** Serves one client over a message transport; the handle tells its state and closes it. */
  connect(transport: MessageTransport, options?: ConnectOptions): ConnectionHandle {
    if (this.closing) throw new Error('The application is closing');
    const session = this.engine.createSession((message: JsonRpcMessage) => transport.send(message), {
      requireInitialize: options?.requireInitialize,
      // stdio and in-process clients: the first initialize or 2026-07-28 request decides the era.
      era: this.engine.eras === 'dual' ? 'auto' : this.engine.eras,
      // A verified principal, else (when asked) the machine's local user: the facts of every message it sends.
      extra: options?.auth ? { auth: connectionAuth(options.auth) } : options?.local ? { local: true } : undefined,
    });
    const served: Served = {
      stopAccepting: () => undefined,
      close: async () => {
        session.close();
        await transport.close();
      },
    };
    this.served.add(served);
    const logError = (what: string) => (error: unknown) => this.logger.error(what, error);
    const started = transport.start(
      (input) => {
        if (!input.ok) transport.send(input.error).catch(logError('Could not answer a malformed message'));
        // receive answers every failure of a handler itself; this catches only a broken transport.
        else
          withLogFields(messageLogFields(input.message), () => session.receive(input.message)).catch(logError('Could not serve a message'));
      },
      () => {
        this.served.delete(served);
        // A listen stream never finishes by itself: the connection is gone, so it is not waited for.
        void this.drain(() => session.inflightCount - this.engine.subscriptions.heldBy(session))
          .then(() => {
            session.close();
            options?.onClose?.();
          })
          .catch(logError('Could not close a connection'));
      },
    );
    Promise.resolve(started).catch((error) => {
      this.logger.error('A transport failed to start', error);
      void served.close().catch(logError('Could not close a transport that failed to start'));
    });
    return handleOf(session, () => served.close());
  }

  /** Connects an in-process client; the returned transport fits the official SDK `Client` and `McpTestClient`. */
  connectInMemory(options?: ConnectOptions): ClientTransport {
    const { client, server } = createInMemoryTransportPair();
    this.connect(server, { local: true, ...options });
    return client;
  }

  /**
   * A Streamable HTTP transport for this application, not yet listening: mount `middleware()` in
   * your own Koa app, pass `callback()` to a Node server (or supertest), or call `listen()`.
   */
  httpTransport(options: HttpOptions = {}): HttpTransport {
    if (this.closing) throw new Error('The application is closing');
    const shared = this.scaleOut?.httpDefaults();
    // Loaded here, not at import: a stdio-only server never loads Koa.

    const { StreamableHttpTransport: Transport } =
      require('../transports/http/streamable-http') as typeof import('../transports/http/streamable-http');
    const transport = new Transport(
      {
        createSession: (sink, o) => this.engine.createSession(sink, o),
        stateless: this.engine,
        logError: (m, e) => this.logger.error(m, e),
        modern: this.engine.modern,
        readiness: { taskStore: this.tasks.store },
      },
      withTracedEventStore(shared ? { ...shared, ...options } : options, this.engine.telemetry),
    );
    const served: Served = { stopAccepting: () => transport.stopAccepting(), close: () => transport.close() };
    this.served.add(served);
    this.httpServed.set(transport, served);
    return transport;
  }

  /**
   * Starts serving. With `stdio`, the application closes when stdin ends, and `console.log`/`info`/
   * `debug` write to stderr from here on (stdout carries protocol messages only). Rejects with
   * `AddressInUseError` when the HTTP address is taken.
   */
  async listen(options: ListenOptions): Promise<ListenResult> {
    const stdio = options.stdio === true ? {} : options.stdio || undefined;
    // Checked before anything is served: a server whose one client would be refused does not start.
    const auth = stdio?.auth && (await verifyStdioToken(stdio.auth));
    if (stdio) redirectConsoleToStderr();
    const result: ListenResult = {};
    if (options.http) result.http = await this.listenHttp(options.http);
    // Without a verified token, the stdio client is the machine's local user (see ConnectOptions.local).
    if (stdio)
      this.connect(new StdioTransport(stdio), {
        auth,
        local: !auth,
        onClose: () => void this.close().catch((e) => this.logger.error('Could not close the application', e)),
      });
    return result;
  }

  private async listenHttp(options: HttpOptions): Promise<NonNullable<ListenResult['http']>> {
    const transport = this.httpTransport(options);
    try {
      return await transport.listen();
    } catch (error) {
      const served = this.httpServed.get(transport);
      if (served) this.served.delete(served);
      // The listen error is what the caller needs; a failure to release the half-started transport is only logged.
      await transport.close().catch((e) => this.logger.error('Could not close a transport that failed to listen', e));
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      if (code !== 'EADDRINUSE') throw error;
      const { address, port } = error as { address?: string; port?: number };
      throw new AddressInUseError(address ?? options.host ?? '127.0.0.1', port ?? options.port ?? 3000, { cause: error });
    }
  }

  /** Closes on SIGINT/SIGTERM, then lets the process exit. */
  enableShutdownHooks(signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM']): this {
    for (const signal of signals) {
      process.once(signal, () => {
        this.close().then(
          () => process.exit(0),
          (error) => {
            this.logger.error('Could not close the application cleanly', error);
            process.exit(1);
          },
        );
      });
    }
    return this;
  }

  /**
   * Stops accepting messages, waits (up to `shutdownTimeoutMs`) for requests in flight, cancels the
   * rest, closes every session and transport, and disposes the container.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const served = [...this.served];
      for (const s of served) s.stopAccepting();
      // Listen streams end first, with their final result (graceful closure), so the drain does not wait for them.
      await this.engine.subscriptions.close();
      await this.drain(() => this.engine.inflightCount);
      await this.closeMounts();
      await this.tasks.close();
      this.engine.closeAllSessions();
      await Promise.allSettled(served.map((s) => s.close()));
      this.served.clear();
      await this.tasks.store.close();
      await this.scaleOut?.close();
      await this.container.dispose();
    })();
    return this.closing;
  }

  /** Waits until `inflight()` is zero or `shutdownTimeoutMs` passed. */
  private async drain(inflight: () => number): Promise<void> {
    const deadline = Date.now() + this.options.shutdownTimeoutMs;
    while (inflight() > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10).unref());
    }
  }
}

const stripInstructions = ({ instructions: _instructions, ...info }: ResolvedOptions['server']) => info;
