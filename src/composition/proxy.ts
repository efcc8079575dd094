import { McpClient } from '../client/mcp-client';
import type { ClientEra } from '../client/per-request-session';
import type { McpClientTransport } from '../client/client-transport';
import type { ElicitFormRequest, ElicitUrlRequest, McpContext } from '../context/mcp-context';
import type { RequestId } from '../mcp/json-rpc';
import type { CreateMessageParams, LoggingLevel } from '../mcp/mcp-types';
import { McpError } from '../mcp/mcp.error';
import { isInputRequired } from '../protocol/per-request/input-round';
import type { Contribution } from '../registry/contribution';
import { prefixedUri } from './mount';
import { ownResult, proxiedContribution, type RemoteCalls, type RemoteLists } from './proxy-surface';

/** Options of `proxy(app, ...)`. */
export interface ProxyOptions {
  /** Milliseconds a forwarded request may take, restarted by progress (default: the application's `clientRequestTimeoutMs`). */
  timeoutMs?: number;
  /** How the proxy introduces itself to the remote server (default: the application's server info). */
  clientInfo?: { name: string; version: string };
  /**
   * Which era to speak to the remote server: 'auto' (default) asks for 2026-07-28 with server/discover
   * and falls back to initialize; 'handshake' goes straight to initialize; 'per-request' requires
   * 2026-07-28.
   */
  era?: ClientEra;
}

/** What the proxy asks of the application that serves it. */
export interface ProxyHost {
  contribute(contribution: Contribution): void;
  /** Stops serving the remote server's primitives (its connection is gone). */
  withdraw(): void;
  notifyResourceUpdated(uri: string): Promise<void>;
  logError(message: string, error?: unknown): void;
}

/** Remote resources one proxy subscribes to, at most. */
const MAX_WATCHED = 10_000;

/** The code of a request given up because its caller cancelled it (never sent: cancelled requests get no answer). */
const REQUEST_CANCELLED = -32800;

type Lists = Omit<RemoteLists, 'completions'>;
const LISTS: Record<keyof Lists, [string, string, string]> = {
  tools: ['tools', 'tools/list', 'tools'],
  resources: ['resources', 'resources/list', 'resources'],
  templates: ['resources', 'resources/templates/list', 'resourceTemplates'],
  prompts: ['prompts', 'prompts/list', 'prompts'],
};

/**
 * A remote MCP server served through this application under a prefix: an McpClient connected to
 * it, its lists mirrored (refreshed on its list_changed), and every call forwarded with the caller's
 * context: cancellation, progress, log messages, and the remote server's requests to the client
 * (elicitation, sampling, roots) answered by the caller's client through this server.
 */
export class RemoteServer implements RemoteCalls {
  /** The calls in flight, by the id the remote server knows them by, with the context they serve and what ends them early. */
  private readonly calls = new Map<RequestId, { ctx: McpContext; stop: AbortController }>();
  private lists: Lists = { tools: [], resources: [], templates: [], prompts: [] };
  private readonly pending = new Set<keyof Lists>();
  /** Remote subscriptions being made, so that two clients subscribing at once send one. */
  private readonly watching = new Map<string, Promise<void>>();
  private refreshing?: Promise<void>;
  private closed = false;
  private stopListening?: () => void;
  /** The transport relates the remote server's messages to the request whose stream carried them (Streamable HTTP). */
  private relates = false;

  private constructor(
    private readonly prefix: string,
    private readonly client: McpClient,
    private readonly host: ProxyHost,
    private readonly timeoutMs: number,
    private readonly watched: Set<string>,
  ) {}

  /**
   * Subscribes once to a remote resource a client of this server subscribed to (a server of the
   * 2026-07-28 era, or one without subscriptions, is not asked; its updates still pass on). At most
   * MAX_WATCHED are kept: past it the oldest is unsubscribed at the remote server.
   */
  async watch(uri: string): Promise<void> {
    const resources = this.client.serverCapabilities?.resources as { subscribe?: boolean } | undefined;
    if (this.client.era === 'per-request' || resources?.subscribe !== true || this.watched.has(uri)) return;
    let pending = this.watching.get(uri);
    if (!pending) {
      pending = this.subscribe(uri).finally(() => this.watching.delete(uri));
      this.watching.set(uri, pending);
    }
    await pending;
    if (this.watched.size >= MAX_WATCHED) {
      const oldest = this.watched.values().next().value as string;
      this.watched.delete(oldest);
      void this.client.request('resources/unsubscribe', { uri: oldest }, { timeoutMs: this.timeoutMs }).catch(() => undefined);
    }
    this.watched.add(uri);
  }

  private async subscribe(uri: string): Promise<void> {
    await this.client.request('resources/subscribe', { uri }, { timeoutMs: this.timeoutMs });
  }

  /**
   * Connects, reads the lists and follows their changes. `watched` holds the remote resources this
   * server's clients subscribed to (kept across reconnections: they are subscribed to again).
   */
  static async connect(
    prefix: string,
    transport: McpClientTransport,
    host: ProxyHost,
    options: Required<Pick<ProxyOptions, 'timeoutMs'>> & ProxyOptions,
    lost: () => void,
    watched: Set<string>,
  ): Promise<RemoteServer> {
    const client = new McpClient({
      clientInfo: options.clientInfo,
      era: options.era ?? 'auto',
      capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: false } },
    });
    const remote = new RemoteServer(prefix, client, host, options.timeoutMs, watched);
    remote.answerRemoteRequests();
    client.onerror = (error) => host.logError(`The server proxied at "${prefix}" sent something that could not be used`, error);
    await client.connect(transport, { timeoutMs: options.timeoutMs });
    let ready = false;
    client.onclose = () => {
      remote.closed = true;
      if (ready) lost();
    };
    try {
      remote.listenToChanges();
      await remote.refresh(['tools', 'resources', 'templates', 'prompts']);
      await remote.listenPerRequest();
      const resources = client.serverCapabilities?.resources as { subscribe?: boolean } | undefined;
      if (client.era !== 'per-request' && resources?.subscribe === true) {
        await Promise.all(
          [...watched].map((uri) =>
            remote
              .subscribe(uri)
              .catch((e) => host.logError(`Could not subscribe again to ${uri} at the server proxied at "${prefix}"`, e)),
          ),
        );
      }
      // The remote server went away while this connection was being made: it is no connection.
      if (remote.closed) throw new McpError(-32000, `The server proxied at "${prefix}" disconnected while connecting`);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    ready = true;
    return remote;
  }

  async call(method: string, params: Record<string, unknown>, ctx: McpContext): Promise<unknown> {
    const ids: RequestId[] = []; // one per round of a 2026-07-28 remote server's input requests
    // Ends the remote call when its round is over: a 2026-07-28 caller must answer an input request first.
    const stop = new AbortController();
    const call = { ctx, stop };
    try {
      return ownResult(
        await this.client.request(method, params, {
          signal: AbortSignal.any([ctx.signal, stop.signal]),
          timeoutMs: this.timeoutMs,
          resetTimeoutOnProgress: true,
          onProgress: (p) =>
            void ctx.progress(p.progress, p.total, p.message).catch((e) => this.host.logError('Could not forward progress', e)),
          onRequestId: (sent) => this.calls.set(sent, call) && void ids.push(sent),
          // A 2026-07-28 remote server's input requests: asked of this call's client; each of its rounds is kept
          // across the retries of a 2026-07-28 caller, so that the remote handler's state carries over.
          onInputRequest: (m, p) => this.askOf(call, m, p),
          round: (n, send) => ctx.once(`proxy:${this.prefix}:round-${n}`, send),
        }),
      );
    } catch (error) {
      // The far server asked for input a 2026-07-28 caller gives on its retry (which calls again): this round ends here.
      if (stop.signal.aborted) throw stop.signal.reason;
      // The caller cancelled: nobody hears the answer, and it is no failure worth logging.
      if (ctx.signal.aborted) throw new McpError(REQUEST_CANCELLED, 'Request cancelled');
      throw error;
    } finally {
      for (const id of ids) this.calls.delete(id);
    }
  }

  /** Disconnects on purpose: `lost` is not called. */
  close(): Promise<void> {
    this.closed = true;
    this.stopListening?.();
    this.client.onclose = undefined;
    return this.client.close();
  }

  /**
   * Fetches the named lists again and hands the whole surface to the application. One refresh runs at
   * a time: kinds asked for meanwhile are fetched by the next pass, so answers cannot overtake each
   * other and a change heard during a refresh is never lost.
   */
  private refresh(which: (keyof Lists)[]): Promise<void> {
    for (const list of which) this.pending.add(list);
    this.refreshing ??= this.refreshPending().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async refreshPending(): Promise<void> {
    while (this.pending.size > 0) {
      const which = [...this.pending];
      this.pending.clear();
      const caps = this.client.serverCapabilities ?? {};
      const fetched: Partial<Record<keyof Lists, unknown[]>> = {};
      for (const list of which) {
        const [capability, method, key] = LISTS[list];
        fetched[list] = caps[capability] ? await this.client.listAll(method, key, {}, { timeoutMs: this.timeoutMs }) : [];
      }
      const lists = { ...this.lists, ...fetched } as Lists;
      const contribution = proxiedContribution(this.prefix, { ...lists, completions: caps.completions !== undefined }, this, (what, e) =>
        this.host.logError(`The proxied ${what} cannot be served`, e),
      );
      this.host.contribute(contribution);
      this.lists = lists;
    }
  }

  /** Listens to the remote server's notifications (before its lists are first read, so no change is missed). */
  private listenToChanges(): void {
    const refresh = (which: (keyof Lists)[]) => () =>
      void this.refresh(which).catch((e) => this.host.logError(`Could not refresh the lists of the server proxied at "${this.prefix}"`, e));
    this.client.onNotification('notifications/tools/list_changed', refresh(['tools']));
    this.client.onNotification('notifications/resources/list_changed', refresh(['resources', 'templates']));
    this.client.onNotification('notifications/prompts/list_changed', refresh(['prompts']));
    this.client.onNotification('notifications/resources/updated', (params) => {
      const uri = typeof params.uri === 'string' ? params.uri : undefined;
      if (uri)
        void this.host
          .notifyResourceUpdated(prefixedUri(this.prefix, uri))
          .catch((e) => this.host.logError('Could not forward a resource update', e));
    });
    this.client.onNotification('notifications/message', (params, { relatedRequestId }) => {
      const ctx = this.contextOf(relatedRequestId);
      if (ctx)
        void ctx.log
          .log(params.level as LoggingLevel, params.data, typeof params.logger === 'string' ? params.logger : undefined)
          .catch(() => undefined);
    });
  }

  /**
   * A 2026-07-28 server tells list changes only on a subscriptions/listen stream. When the stream ends
   * while the connection lives, it is opened again (after a second) and the lists are read again, so a
   * change made in between is not missed.
   */
  private async listenPerRequest(): Promise<void> {
    const caps = this.client.serverCapabilities ?? {};
    const changes = (capability: string) => (caps[capability] as { listChanged?: boolean } | undefined)?.listChanged === true;
    const filter = {
      toolsListChanged: changes('tools'),
      promptsListChanged: changes('prompts'),
      resourcesListChanged: changes('resources'),
    };
    if (this.client.era !== 'per-request' || !Object.values(filter).some(Boolean)) return;
    try {
      const subscription = await this.client.listen(filter, { timeoutMs: this.timeoutMs });
      this.stopListening = () => subscription.close();
      void subscription.ended.then(() => {
        if (this.closed) return;
        this.host.logError(`The list-change stream of the server proxied at "${this.prefix}" ended; opening it again`);
        setTimeout(() => {
          if (this.closed) return;
          void this.listenPerRequest()
            .then(() => this.refresh(['tools', 'resources', 'templates', 'prompts']))
            .catch((e) => this.host.logError(`Could not refresh the lists of the server proxied at "${this.prefix}"`, e));
        }, 1000).unref();
      });
    } catch (error) {
      this.host.logError(`Cannot follow the list changes of the server proxied at "${this.prefix}"`, error);
    }
  }

  /** The remote server's requests to its client go to the client of the call they belong to. */
  private answerRemoteRequests(): void {
    for (const method of ['elicitation/create', 'sampling/createMessage', 'roots/list']) {
      this.client.setRequestHandler(method, (params, { relatedRequestId }) =>
        this.askOf(this.requireCall(relatedRequestId), method, params),
      );
    }
  }

  private askOf(call: { ctx: McpContext; stop: AbortController }, method: string, params: Record<string, unknown>): Promise<unknown> {
    if (method === 'elicitation/create')
      return this.ask(call, (ctx) => ctx.elicit(params as unknown as ElicitFormRequest | ElicitUrlRequest));
    if (method === 'sampling/createMessage') return this.ask(call, (ctx) => ctx.sample(params as unknown as CreateMessageParams));
    if (method === 'roots/list') return this.ask(call, async (ctx) => ({ roots: await ctx.roots() }));
    return Promise.reject(new McpError(-32601, `The remote server asked for ${method.slice(0, 64)}, which the proxy does not forward`));
  }

  /**
   * Asks the caller's client. A 2026-07-28 caller answers on the retry of its request (multi
   * round-trip): until then the question ends this round, so the remote call is cancelled rather
   * than left to fail on an unanswered question; the retry calls the remote server again (a
   * 2026-07-28 remote server's rounds so far are kept, so its request resumes where it stopped).
   */
  private async ask<T>(call: { ctx: McpContext; stop: AbortController }, question: (ctx: McpContext) => Promise<T>): Promise<T> {
    try {
      return await question(call.ctx);
    } catch (error) {
      if (isInputRequired(error)) call.stop.abort(error);
      throw error;
    }
  }

  /**
   * The call a remote request belongs to: the one named by the transport (Streamable HTTP knows which
   * response stream carried it), else, over a transport that never relates messages (stdio), the only
   * call in flight. Otherwise the request cannot be routed and is refused.
   */
  private callOf(related: RequestId | undefined): { ctx: McpContext; stop: AbortController } | undefined {
    if (related !== undefined) {
      this.relates = true;
      const call = this.calls.get(related);
      if (call) return call;
    }
    // Over a transport that relates messages, one without a relation belongs to no call (a GET stream's).
    return !this.relates && this.calls.size === 1 ? this.calls.values().next().value : undefined;
  }

  private contextOf(related: RequestId | undefined): McpContext | undefined {
    return this.callOf(related)?.ctx;
  }

  private requireCall(related: RequestId | undefined): { ctx: McpContext; stop: AbortController } {
    const ctx = this.callOf(related);
    if (!ctx)
      throw new McpError(
        -32603,
        this.calls.size === 0 ? 'No call in progress to answer this request' : 'Cannot tell which call this request belongs to',
      );
    return ctx;
  }
}
