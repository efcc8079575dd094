import type { McpClientTransport } from '../client/client-transport';
import { type ProxyHost, type ProxyOptions, RemoteServer } from './proxy';

/** A transport, or a function that makes a fresh one: with a function, a lost connection is made again. */
export type ProxyTransport = McpClientTransport | (() => McpClientTransport);

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;
const retryDelay = (attempt: number) => Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** attempt);

/**
 * The connection behind one `proxy(app, ...)`: when the remote server goes away (a stdio server exits, an
 * HTTP server stops answering its stream), its primitives are withdrawn (clients hear list_changed)
 * and, when the transport was given as a function, it is connected again with a growing delay
 * (0.5 s doubling to 30 s) and served again once its lists are read.
 */
export class ProxyLink {
  private remote?: RemoteServer;
  private closed = false;
  private retry?: NodeJS.Timeout;
  private attempts = 0;
  /** The remote resources clients subscribed to, subscribed to again after a reconnection. */
  private readonly watched = new Set<string>();

  /** The application as the remote server's connections see it: nothing reaches it once the link is closed. */
  private readonly host: ProxyHost;

  constructor(
    private readonly prefix: string,
    private readonly transport: ProxyTransport,
    host: ProxyHost,
    private readonly options: Required<Pick<ProxyOptions, 'timeoutMs'>> & ProxyOptions,
  ) {
    this.host = {
      ...host,
      contribute: (c) => void (this.closed || host.contribute(c)),
      withdraw: () => void (this.closed || host.withdraw()),
    };
  }

  /** Connects the first time; rejects (and serves nothing) when the remote server cannot be used. */
  async start(): Promise<void> {
    this.remote = await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.remote?.close();
  }

  /** Async, so that a transport function that throws fails this attempt, not the process (it runs in a timer). */
  private async connect(): Promise<RemoteServer> {
    const transport = typeof this.transport === 'function' ? this.transport() : this.transport;
    return RemoteServer.connect(this.prefix, transport, this.host, this.options, () => this.lost(), this.watched);
  }

  private lost(): void {
    if (this.closed) return;
    this.remote = undefined;
    this.host.withdraw();
    const again = typeof this.transport === 'function';
    this.host.logError(
      `The server proxied at "${this.prefix}" disconnected; its tools, resources and prompts are withdrawn${again ? ' until it is reconnected' : ''}`,
    );
    if (again) this.reconnectLater();
  }

  private reconnectLater(): void {
    const delay = retryDelay(this.attempts++);
    this.retry = setTimeout(() => {
      this.connect().then(
        (remote) => {
          if (this.closed) return void remote.close().catch(() => undefined);
          this.remote = remote;
          this.attempts = 0;
        },
        (error) => {
          if (this.closed) return;
          this.host.withdraw(); // what a failed attempt may have contributed is not served
          this.host.logError(
            `Could not reconnect the server proxied at "${this.prefix}" (next attempt in ${retryDelay(this.attempts) / 1000} s)`,
            error,
          );
          this.reconnectLater();
        },
      );
    }, delay);
    this.retry.unref();
  }
}
