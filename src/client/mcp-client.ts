import type { RequestId } from '../mcp/json-rpc';
import type { Era } from '../mcp/eras';
import { McpError } from '../mcp/mcp.error';
import {
  asError,
  CLIENT_LATEST_VERSION,
  CLIENT_PROTOCOL_VERSIONS,
  isClientMessage,
  type ClientMessage,
  type McpClientTransport,
  type MessageExtra,
} from './client-transport';
import { InboundRequests, type InboundRequestHandler } from './inbound-requests';
import { ParamHeaderBook } from './per-request-http';
import { isDiscoverRefusal, PerRequestSession, type ClientEra, type ServerDescription } from './per-request-session';
import { CONNECTION_CLOSED, OutboundRequests, abortError, type Progress, type RequestOptions } from './outbound-requests';

export interface McpClientOptions {
  /** Sent as clientInfo in initialize. Default { name: 'mcpkit-client', version: '1.0.0' }. */
  clientInfo?: { name: string; version: string; title?: string };
  /** Client capabilities declared in initialize (elicitation, sampling, roots, ...). */
  capabilities?: Record<string, unknown>;
  /** The protocol version asked for in initialize. Default '2025-11-25'. */
  protocolVersion?: string;
  /**
   * `handshake` (default): initialize (2024-11-05 … 2025-11-25). `per-request`: 2026-07-28 (server/discover,
   * every request enveloped, input requests answered by the handlers and retried). `auto`: server/discover,
   * falling back to initialize when the server refuses it. `legacy` and `modern`, the first spellings of
   * `handshake` and `per-request`, are deprecated aliases.
   */
  era?: ClientEra;
  /** Most input rounds of one 2026-07-28 request before giving up. Default 10. */
  maxInputRounds?: number;
  /** Default timeout of each request. Default 60 000 ms. */
  requestTimeoutMs?: number;
  /** Most requests in flight at once; more are refused. Default 1000. */
  maxPendingRequests?: number;
  /** Most server→client requests handled at once; more are answered with an error. Default 100. */
  maxInboundRequests?: number;
}

/** `extra.relatedRequestId`: the request whose response stream carried the notification (Streamable HTTP). */
export type NotificationHandler = (params: Record<string, unknown>, extra: MessageExtra) => void;

/** What the server said in initialize (or, in the 2026-07-28 era, server/discover). */
export type InitializeResult = ServerDescription;

/**
 * A Model Context Protocol client: connects over any SDK-shaped transport, initializes, sends
 * requests (with timeout, cancellation and progress) and notifications, and answers the server's
 * own requests through handlers. Every request settles: on its response, its timeout, its signal,
 * or the connection closing.
 */
export class McpClient {
  /** Problems that belong to no request: unparseable messages, a failing handler, transport errors. */
  onerror?: (error: Error) => void;
  /** The connection closed (either side). */
  onclose?: () => void;
  private transport?: McpClientTransport;
  private init?: InitializeResult;
  private closed = false;
  /** Set once the connection is in the 2026-07-28 era. */
  private perRequest?: PerRequestSession;
  private readonly outbound: OutboundRequests;
  private readonly inbound: InboundRequests;
  /** The Mcp-Param-* annotations of the tools a 2026-07-28 server listed. */
  private readonly paramHeaders = new ParamHeaderBook();
  private readonly listeners = new Map<string, Set<NotificationHandler>>();
  /** The era asked for in the options. */
  private readonly askedEra: string;

  constructor(private readonly options: McpClientOptions = {}) {
    this.askedEra = options.era ?? 'handshake';
    this.outbound = new OutboundRequests(options.maxPendingRequests ?? 1000, options.requestTimeoutMs ?? 60_000, (id, reason) => {
      this.notify('notifications/cancelled', { requestId: id, reason }).catch((error) => this.fail(error));
    });
    this.inbound = new InboundRequests(options.maxInboundRequests ?? 100, (response, id) => this.reply(response, id));
  }

  get serverCapabilities(): Record<string, unknown> | undefined {
    return this.init?.capabilities;
  }

  get serverInfo(): InitializeResult['serverInfo'] | undefined {
    return this.init?.serverInfo;
  }

  get instructions(): string | undefined {
    return this.init?.instructions;
  }

  get protocolVersion(): string | undefined {
    return this.init?.protocolVersion;
  }

  /** The transport's session id (Streamable HTTP), if any. */
  get sessionId(): string | undefined {
    return this.transport?.sessionId;
  }

  /** 'per-request' once server/discover agreed on 2026-07-28, 'handshake' once initialized. */
  get era(): Era | undefined {
    return this.init ? (this.perRequest ? 'per-request' : 'handshake') : undefined;
  }

  /**
   * Starts the transport and opens the connection in its era: initialize + notifications/initialized,
   * or server/discover (2026-07-28). Closes the transport when that fails.
   */
  async connect(transport: McpClientTransport, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<InitializeResult> {
    if (this.transport) throw new Error('McpClient is already connected; create another client for another connection');
    this.transport = transport;
    transport.onmessage = (message, extra) => this.receive(message, extra);
    transport.onerror = (error) => this.fail(error);
    transport.onclose = () => this.closedByTransport();
    try {
      await transport.start();
      const era = this.askedEra;
      if (era !== 'handshake') {
        const perRequest = new PerRequestSession(this.clientInfo(), this.options.capabilities ?? {}, this.options.maxInputRounds);
        try {
          this.init = await perRequest.discover(
            (m, p, o) => this.send(m, perRequest.envelope(p), o) as Promise<Record<string, unknown>>,
            options,
          );
          this.perRequest = perRequest;
          transport.setProtocolVersion?.(this.init.protocolVersion);
          return this.init;
        } catch (error) {
          if (era === 'per-request' || !isDiscoverRefusal(error) || this.closed) throw error;
        }
      }
      const result = await this.request<InitializeResult>(
        'initialize',
        {
          protocolVersion: this.options.protocolVersion ?? CLIENT_LATEST_VERSION,
          capabilities: this.options.capabilities ?? {},
          clientInfo: this.clientInfo(),
        },
        options,
      );
      if (!result || typeof result !== 'object' || !(CLIENT_PROTOCOL_VERSIONS as readonly string[]).includes(result.protocolVersion)) {
        throw new Error(
          `The server answered initialize with protocol version ${JSON.stringify(result?.protocolVersion)}, which this client does not support (${CLIENT_PROTOCOL_VERSIONS.join(', ')})`,
        );
      }
      this.init = { ...result, capabilities: result.capabilities ?? {} };
      transport.setProtocolVersion?.(result.protocolVersion);
      await this.notify('notifications/initialized');
      return this.init;
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Sends a request and resolves with its result; rejects with McpError on an error response. In the
   * 2026-07-28 era the request carries the envelope, and an input-required result is answered by this
   * client's request handlers and retried until it completes.
   */
  async request<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, options: RequestOptions = {}): Promise<T> {
    const perRequest = this.perRequest;
    if (!perRequest) return this.send(method, params, options) as Promise<T>;
    const send = (m: string, p: Record<string, unknown>, o: RequestOptions) =>
      this.send(m, perRequest.envelope(p), o) as Promise<Record<string, unknown>>;
    const headers = this.paramHeaders.headersFor(method, params);
    const result = await perRequest.request(
      send,
      (m, p, context) => this.inbound.call(m, p, context),
      method,
      params ?? {},
      headers ? { ...options, headers: { ...options.headers, ...headers } } : options,
    );
    if (method === 'tools/list') this.paramHeaders.learn(result.tools);
    return result as T;
  }

  private async send(method: string, params: Record<string, unknown> | undefined, options: RequestOptions): Promise<unknown> {
    const transport = this.transport;
    if (!transport || this.closed) throw new McpError(CONNECTION_CLOSED, 'Connection closed');
    if (options.signal?.aborted) throw abortError(options.signal.reason);
    const { id, promise } = this.outbound.open(options);
    options.onRequestId?.(id);
    const body: Record<string, unknown> = { ...params };
    if (options.onProgress) body._meta = { ...(body._meta as object | undefined), progressToken: id };
    const message: ClientMessage = { jsonrpc: '2.0', id, method, ...(params !== undefined || options.onProgress ? { params: body } : {}) };
    transport
      .send(message, options.headers ? { headers: options.headers } : undefined)
      .catch((error) => this.outbound.fail(id, new McpError(CONNECTION_CLOSED, `Could not send ${method}: ${asError(error).message}`)));
    return promise;
  }

  private clientInfo(): { name: string; version: string; title?: string } {
    return this.options.clientInfo ?? { name: 'mcpkit-client', version: '1.0.0' };
  }

  /** Sends a notification. */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const transport = this.transport;
    if (!transport || this.closed) throw new McpError(CONNECTION_CLOSED, 'Connection closed');
    await transport.send({ jsonrpc: '2.0', method, ...(params !== undefined ? { params } : {}) });
  }

  /** Calls `handler` for each notification of `method`; returns the unsubscribe function. */
  onNotification(method: string, handler: NotificationHandler): () => void {
    let set = this.listeners.get(method);
    if (!set) this.listeners.set(method, (set = new Set()));
    set.add(handler);
    return () => void set.delete(handler);
  }

  /** Answers the server's requests of `method` (elicitation/create, sampling/createMessage, roots/list, ...). */
  setRequestHandler(method: string, handler: InboundRequestHandler): void {
    this.inbound.set(method, handler);
  }

  removeRequestHandler(method: string): void {
    this.inbound.remove(method);
  }

  /**
   * 2026-07-28: opens a subscriptions/listen stream for the notifications `filter` names
   * (toolsListChanged, promptsListChanged, resourcesListChanged, resourceSubscriptions); they reach the
   * onNotification handlers. Resolves once the server acknowledged it; `close()` ends the stream.
   */
  async listen(filter: Record<string, unknown>, options: { timeoutMs?: number } = {}): Promise<{ close(): void; ended: Promise<void> }> {
    if (!this.perRequest) throw new Error('subscriptions/listen belongs to the 2026-07-28 era; this connection is not in it');
    const abort = new AbortController();
    let acknowledged!: () => void;
    const ack = new Promise<void>((resolve) => (acknowledged = resolve));
    const stop = this.onNotification('notifications/subscriptions/acknowledged', () => acknowledged());
    const stream = this.request('subscriptions/listen', { notifications: filter }, { signal: abort.signal, timeoutMs: Infinity });
    stream.catch(() => undefined); // ends when closed, by either side
    const timeout = options.timeoutMs ?? this.options.requestTimeoutMs ?? 60_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        ack,
        stream,
        new Promise(
          (_, reject) => (timer = setTimeout(() => reject(new McpError(-32001, 'subscriptions/listen was not acknowledged')), timeout)),
        ),
      ]);
    } catch (error) {
      abort.abort();
      throw error;
    } finally {
      clearTimeout(timer);
      stop();
    }
    // Settles when the stream ends, by either side (the server closing it, the connection dropping, close()).
    const ended = stream.then(() => undefined, () => undefined); // prettier-ignore
    return { close: () => abort.abort('subscription closed'), ended };
  }

  /** Pages through a list method (tools/list, resources/list, ...) following nextCursor; returns every item of `key` (at most `maxPages` pages, default 1000, and `maxItems` items, default 100 000). */
  async listAll<T = Record<string, unknown>>(
    method: string,
    key: string,
    params: Record<string, unknown> = {},
    options: RequestOptions & { maxPages?: number; maxItems?: number } = {},
  ): Promise<T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < (options.maxPages ?? 1000); page++) {
      const result = await this.request<Record<string, unknown>>(method, cursor === undefined ? params : { ...params, cursor }, options);
      const list = result?.[key];
      if (!Array.isArray(list)) throw new Error(`${method} answered without an array "${key}"`);
      if (items.length + list.length > (options.maxItems ?? 100_000))
        throw new Error(`${method} returned more than ${options.maxItems ?? 100_000} items; stopping`);
      for (const item of list as T[]) items.push(item);
      const next = result.nextCursor;
      if (typeof next !== 'string' || next === '') return items;
      if (seen.has(next)) throw new Error(`${method} returned cursor ${JSON.stringify(next.slice(0, 64))} twice; stopping`);
      seen.add(next);
      cursor = next;
    }
    throw new Error(`${method} returned more than ${options.maxPages ?? 1000} pages; stopping`);
  }

  /** Rejects pending requests, aborts running handlers, closes the transport. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.shutDown('Connection closed by the client');
    await this.transport?.close();
  }

  private receive(message: ClientMessage, extra?: MessageExtra): void {
    if (!isClientMessage(message)) return this.fail(new Error('Received something that is not a JSON-RPC 2.0 message'));
    const hasId = typeof message.id === 'string' || typeof message.id === 'number';
    if (typeof message.method === 'string') {
      if (hasId) return this.inbound.handle(message, extra?.relatedRequestId);
      return this.notification(
        message.method,
        (typeof message.params === 'object' && message.params !== null ? message.params : {}) as Record<string, unknown>,
        extra ?? {},
      );
    }
    if (hasId && ('result' in message || 'error' in message)) {
      if (
        !this.outbound.settle(
          message.id as RequestId,
          message as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } },
        )
      )
        this.fail(new Error(`Received a response for unknown request id ${JSON.stringify(message.id)}`));
      return;
    }
    this.fail(new Error(`Received a message that is neither request, notification nor response: ${JSON.stringify(message).slice(0, 120)}`));
  }

  private notification(method: string, params: Record<string, unknown>, extra: MessageExtra): void {
    if (method === 'notifications/progress') this.guard(() => this.outbound.progress(params.progressToken, params as unknown as Progress));
    else if (method === 'notifications/cancelled') this.inbound.cancel(params.requestId, params.reason);
    for (const handler of this.listeners.get(method) ?? []) this.guard(() => handler(params, extra));
  }

  private reply(response: ClientMessage, relatedRequestId: RequestId): void {
    if (this.closed || !this.transport) return;
    this.transport
      .send(response, { relatedRequestId })
      .catch((error) =>
        this.fail(new Error(`Could not answer the server's request ${JSON.stringify(relatedRequestId)}: ${asError(error).message}`)),
      );
  }

  private closedByTransport(): void {
    if (this.closed) return;
    this.shutDown('Connection closed');
  }

  private shutDown(reason: string): void {
    this.closed = true;
    this.outbound.rejectAll(() => new McpError(CONNECTION_CLOSED, reason));
    this.inbound.abortAll(reason);
    this.guard(() => this.onclose?.());
  }

  private guard(run: () => void): void {
    try {
      run();
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    try {
      this.onerror?.(asError(error));
    } catch {
      // an error handler that throws has nowhere left to report to
    }
  }
}
