import { connectionAuth } from '../auth/principal';
import type { JsonRpcMessage } from '../mcp/json-rpc';
import type { ProtocolEngine } from '../protocol/protocol-engine';
import type { TaskStore } from '../tasks/task-store';
import type { SessionFactory } from '../transports/http/session-directory';
import { type ClientTransport, createInMemoryTransportPair } from '../transports/in-memory.transport';
import type { MessageTransport } from '../transports/message-transport';
import { type ConnectionHandle, type ConnectOptions, handleOf, type Served } from './listen-options';
import { messageLogFields, withLogFields } from '../observability/log-context';
import type { RequestTelemetry } from '../observability/telemetry-options';
import type { ScaleOut } from './scale-out';
import type { ServerLogger } from './server-logger';

/**
 * A way into the application that a process brings from its own entry point: stdio (`stdio()` from
 * `mcpkit/stdio`), an HTTP server (`httpServer()` from `mcpkit/http`). `McpApplication.listen` opens
 * it; what it answers (where an HTTP server listens) is what `listen` resolves with. A process loads
 * the code of the doors it opens, and no other.
 */
export interface FrontDoor<R> {
  /** Starts serving the application: `serving` tracks what it opens, so that closing the application closes it. */
  open(serving: Serving): R;
}

/** What serving needs of the application it belongs to. */
export interface ServingHost {
  readonly engine: ProtocolEngine;
  readonly taskStore: TaskStore;
  readonly scaleOut: ScaleOut | undefined;
  readonly logger: ServerLogger;
  readonly shutdownTimeoutMs: number;
  /** True once the application began closing: nothing new is served. */
  readonly closing: boolean;
  /** Closes the whole application (a stdio server does when its stdin ends). */
  close(): Promise<void>;
}

/**
 * How the application is served: message transports (in-process, any of the user's) and the front
 * doors a process brings (stdio, HTTP, fetch, from their own entry points), each tracked so that closing
 * the application stops and closes every one. What a front door needs of the application is here.
 */
export class Serving {
  private readonly served = new Set<Served>();

  constructor(private readonly host: ServingHost) {}

  get logger(): ServerLogger {
    return this.host.logger;
  }

  get scaleOut(): ScaleOut | undefined {
    return this.host.scaleOut;
  }

  get telemetry(): RequestTelemetry | undefined {
    return this.host.engine.telemetry;
  }

  /** Serves the application through a front door (see McpApplication.listen). */
  open<R>(door: FrontDoor<R>): R {
    this.refuseWhenClosing();
    return door.open(this);
  }

  /** Something a front door serves with: stopped and closed with the application; `release` lets it go before. */
  track(served: Served): () => void {
    this.refuseWhenClosing();
    this.served.add(served);
    return () => void this.served.delete(served);
  }

  /** Closes the whole application (a stdio server does when its stdin ends). */
  closeApplication(): Promise<void> {
    return this.host.close();
  }

  /** Serves one client over a message transport; the handle tells its state and closes it. */
  connect(transport: MessageTransport, options?: ConnectOptions): ConnectionHandle {
    this.refuseWhenClosing();
    const { engine, logger } = this.host;
    const session = engine.createSession((message: JsonRpcMessage) => transport.send(message), {
      requireInitialize: options?.requireInitialize,
      // stdio and in-process clients: the first initialize or 2026-07-28 request decides the era.
      era: engine.eras === 'dual' ? 'auto' : engine.eras,
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
    const logError = (what: string) => (error: unknown) => logger.error(what, error);
    const started = transport.start(
      (input) => {
        if (!input.ok) transport.send(input.error).catch(logError('Could not answer a malformed message'));
        else {
          // Entries logged while the message is served carry its request's id and method.
          const message = input.message;
          const fields = messageLogFields(message);
          // deliver answers every failure of a handler itself, and logs a broken transport's.
          void (fields ? withLogFields(fields, () => session.deliver(message)) : session.deliver(message));
        }
      },
      () => {
        this.served.delete(served);
        // A listen stream never finishes by itself: the connection is gone, so it is not waited for.
        this.drain(() => session.inflightCount - engine.subscriptions.heldBy(session))
          .then(() => {
            session.close();
            options?.onClose?.();
          })
          .catch(logError('Could not close a connection'));
      },
    );
    Promise.resolve(started).catch((error) => {
      logger.error('A transport failed to start', error);
      served.close().catch(logError('Could not close a transport that failed to start'));
    });
    return handleOf(session, () => served.close());
  }

  /** Connects an in-process client; the returned transport fits the official SDK `Client` and `McpTestClient`. */
  connectInMemory(options?: ConnectOptions): ClientTransport {
    const { client, server } = createInMemoryTransportPair();
    this.connect(server, { local: true, ...options });
    return client;
  }

  /** What an HTTP front door needs of the application to serve sessions and stateless requests. */
  sessionFactory(): SessionFactory {
    const { engine, logger, taskStore } = this.host;
    return {
      createSession: (sink, o) => engine.createSession(sink, o),
      stateless: engine,
      logError: (m, e) => logger.error(m, e),
      perRequest: engine.perRequest,
      readiness: { taskStore },
    };
  }

  /** Stops taking new connections and messages on every front door. */
  stopAccepting(): void {
    for (const s of this.served) s.stopAccepting();
  }

  /** Closes every transport and connection (after the application drained what it could). */
  async close(): Promise<void> {
    const served = [...this.served];
    this.served.clear();
    await Promise.allSettled(served.map((s) => s.close()));
  }

  /** Waits until `inflight()` is zero or `shutdownTimeoutMs` passed. */
  async drain(inflight: () => number): Promise<void> {
    const deadline = Date.now() + this.host.shutdownTimeoutMs;
    while (inflight() > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10).unref());
    }
  }

  private refuseWhenClosing(): void {
    if (this.host.closing) throw new Error('The application is closing');
  }
}
