import { connectionAuth } from '../auth/principal';
import { verifyStdioToken } from '../auth/stdio-auth';
import type { JsonRpcMessage } from '../mcp/json-rpc';
import type { ProtocolEngine } from '../protocol/protocol-engine';
import type { TaskStore } from '../tasks/task-store';
import { createFetchHandler } from '../transports/http/fetch-handler';
import type { HttpOptions } from '../transports/http/http-options';
import type { FetchHandler, HttpTransport, LambdaHandler } from '../transports/http/http-handler.types';
import { lambdaHandler } from '../transports/http/lambda-adapter';
import type { SessionFactory } from '../transports/http/session-directory';
import { StreamableHttpTransport } from '../transports/http/streamable-http';
import { withTracedEventStore } from '../transports/http/traced-event-store';
import { type ClientTransport, createInMemoryTransportPair } from '../transports/in-memory.transport';
import type { MessageTransport } from '../transports/message-transport';
import { StdioTransport } from '../transports/stdio.transport';
import { holdConsoleOnStderr } from './console-redirect';
import { type ConnectionHandle, type ConnectOptions, handleOf, type ListenOptions, type ListenResult, type Served } from './listen-options';
import { messageLogFields, withLogFields } from '../observability/log-context';
import type { ScaleOut } from './scale-out';
import type { ServerLogger } from './server-logger';

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
 * The application's front doors: message transports (stdio, in-process, any of the user's) and
 * Streamable HTTP, each tracked so that closing the application stops and closes every one.
 */
export class Serving {
  private readonly served = new Set<Served>();
  private readonly httpServed = new WeakMap<HttpTransport, Served>();

  constructor(private readonly host: ServingHost) {}

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

  /** A Streamable HTTP transport for the application, not yet listening. */
  httpTransport(options: HttpOptions = {}): HttpTransport {
    return this.streamableHttp(options);
  }

  private streamableHttp(options: HttpOptions): StreamableHttpTransport {
    this.refuseWhenClosing();
    const transport = new StreamableHttpTransport(this.sessionFactory(), this.httpOptions(options));
    const served: Served = { stopAccepting: () => transport.stopAccepting(), close: () => transport.close() };
    this.served.add(served);
    this.httpServed.set(transport, served);
    return transport;
  }

  /** The same endpoint as a web-standard fetch handler (see McpApplication.fetchHandler); it loads no Koa. */
  fetchHandler(options: HttpOptions = {}): FetchHandler {
    this.refuseWhenClosing();
    const handler = createFetchHandler(this.sessionFactory(), this.httpOptions(options));
    this.served.add({ stopAccepting: () => handler.stopAccepting(), close: () => handler.close() });
    return handler;
  }

  /** The fetch handler behind AWS Lambda's HTTP events (see McpApplication.lambdaHandler). */
  lambdaHandler(options: HttpOptions = {}): LambdaHandler {
    return lambdaHandler(this.fetchHandler(options));
  }

  /** What an HTTP front door needs of the application to serve sessions and stateless requests. */
  private sessionFactory(): SessionFactory {
    const { engine, logger, taskStore } = this.host;
    return {
      createSession: (sink, o) => engine.createSession(sink, o),
      stateless: engine,
      logError: (m, e) => logger.error(m, e),
      perRequest: engine.perRequest,
      readiness: { taskStore },
    };
  }

  /** The options of an HTTP front door: the scale-out's shared stores under the caller's, the event store traced. */
  private httpOptions(options: HttpOptions): HttpOptions {
    const shared = this.host.scaleOut?.httpDefaults();
    return withTracedEventStore(shared ? { ...shared, ...options } : options, this.host.engine.telemetry);
  }

  /** Starts serving over HTTP and/or stdio (see McpApplication.listen). */
  async listen(options: ListenOptions): Promise<ListenResult> {
    const stdio = options.stdio === true ? {} : options.stdio || undefined;
    // Checked before anything is served: a server whose one client would be refused does not start.
    const auth = stdio?.auth && (await verifyStdioToken(stdio.auth));
    // Held by this application until it closes: another application's redirect is its own.
    if (stdio && stdio.redirectConsole !== false && (stdio.output ?? process.stdout) === process.stdout) {
      const release = holdConsoleOnStderr();
      this.served.add({ stopAccepting: () => undefined, close: async () => release() });
    }
    const result: ListenResult = {};
    if (options.http) result.http = await this.listenHttp(options.http);
    if (stdio) {
      const { logger } = this.host;
      // Without a verified token, the stdio client is the machine's local user (see ConnectOptions.local).
      this.connect(new StdioTransport(stdio), {
        auth,
        local: !auth,
        onClose: () => {
          this.host.close().catch((e) => logger.error('Could not close the application', e));
        },
      });
    }
    return result;
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

  private async listenHttp(options: HttpOptions): Promise<NonNullable<ListenResult['http']>> {
    const transport = this.streamableHttp(options);
    try {
      return await transport.listen();
    } catch (error) {
      const served = this.httpServed.get(transport);
      if (served) this.served.delete(served);
      // The listen error is what the caller needs; a failure to release the half-started transport is only logged.
      await transport.close().catch((e) => this.host.logger.error('Could not close a transport that failed to listen', e));
      throw error;
    }
  }

  /** The stdio client's verified AuthInfo. */
  private refuseWhenClosing(): void {
    if (this.host.closing) throw new Error('The application is closing');
  }
}
