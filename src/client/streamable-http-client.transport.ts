import type { RequestId } from '../mcp/json-rpc';
import {
  asError,
  deliverMessage,
  describeError as describe,
  reportError,
  type ClientMessage,
  type McpClientTransport,
  type SendOptions,
} from './client-transport';
import { isPerRequestHttp, perRequestRequestHeaders } from './per-request-http';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  httpErrorResponse,
  messageParser,
  parseMessages,
  readSse,
  readText,
  transportError,
} from './http-response-reader';
import { SseLimitError } from './sse-parser';
import { nodeFetch, type FetchLike, type ResponseLike } from './node-fetch';
import { HEALTHY_STREAM_MS, type StreamableHttpClientOptions } from './streamable-http-options';

export type { StreamableHttpClientOptions };

/**
 * MCP over Streamable HTTP: each message is POSTed; a request's answer comes as JSON or as an SSE
 * stream (whose messages are delivered with `relatedRequestId` = that request's id). Keeps the
 * Mcp-Session-Id of initialize, sends MCP-Protocol-Version once agreed, listens on the GET stream
 * after initialize (405 means the server has none), DELETEs the session on close. A failed exchange
 * for a request is delivered as a JSON-RPC error response for its id; nothing rejects unhandled.
 */
export class StreamableHttpClientTransport implements McpClientTransport {
  onmessage?: McpClientTransport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  sessionId?: string;
  protocolVersion?: string;
  private readonly fetch: FetchLike;
  /** The default fetch's agents, released on close. */
  private readonly ownFetch?: ReturnType<typeof nodeFetch>;
  private readonly controllers = new Set<AbortController>();
  /** Each request's exchange, by id: in the 2026-07-28 era a request is cancelled by aborting it. */
  private readonly exchanges = new Map<RequestId, AbortController>();
  private readonly url: URL;
  private readonly maxMessage: number;
  private initializeId?: RequestId;
  private reconnectTimer?: NodeJS.Timeout;
  private started = false;
  private closed = false;

  constructor(
    url: string | URL,
    private readonly options: StreamableHttpClientOptions = {},
  ) {
    this.url = new URL(url);
    this.maxMessage = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    if (options.fetch) this.fetch = options.fetch;
    else this.fetch = this.ownFetch = nodeFetch();
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('StreamableHttpClientTransport already started');
    this.started = true;
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  async send(message: ClientMessage, options?: SendOptions): Promise<void> {
    if (this.closed) throw new Error('Transport closed');
    const isRequest = typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number');
    const id = isRequest ? (message.id as RequestId) : undefined;
    if (message.method === 'initialize' && id !== undefined) this.initializeId = id;
    const perRequest = isPerRequestHttp(this.protocolVersion);
    if (perRequest && message.method === 'notifications/cancelled')
      return this.cancelExchange((message.params as { requestId?: RequestId } | undefined)?.requestId);
    const controller = this.track();
    if (id !== undefined) this.exchanges.set(id, controller);
    let res: ResponseLike;
    try {
      const headers = await this.headers(
        { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        { ...options?.headers, ...perRequestRequestHeaders(message) },
      );
      res = await this.fetch(this.url, { method: 'POST', headers, body: JSON.stringify(message), signal: controller.signal });
    } catch (error) {
      this.untrack(controller, id);
      if (this.closed || controller.signal.aborted) return;
      const why = `HTTP POST failed: ${describe(error)}`;
      if (id === undefined) throw new Error(why, { cause: error });
      return this.deliver(transportError(id, why), id);
    }
    const sessionId = res.headers.get('mcp-session-id');
    if (sessionId) this.sessionId = sessionId;
    if (!res.ok) {
      this.untrack(controller, id);
      if (id === undefined) {
        await res.body?.cancel().catch(() => undefined);
        throw new Error(`HTTP ${res.status} for a ${typeof message.method === 'string' ? message.method : 'response'} message`);
      }
      return this.deliver(await httpErrorResponse(res, id), id);
    }
    if (message.method === 'notifications/initialized') void this.listen();
    if (id === undefined || res.status === 202 || !res.body) {
      this.untrack(controller, id);
      await res.body?.cancel().catch(() => undefined);
      if (id !== undefined) this.deliver(transportError(id, `HTTP ${res.status} without a response to the request`), id);
      return;
    }
    void this.readAnswer(res, id, controller);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    for (const controller of this.controllers) controller.abort();
    this.controllers.clear();
    if (this.sessionId) {
      try {
        const res = await this.fetch(this.url, { method: 'DELETE', headers: await this.headers({}), signal: AbortSignal.timeout(5000) });
        await res.body?.cancel().catch(() => undefined);
      } catch {
        // the server may be gone already; the session then ends with it
      }
    }
    this.ownFetch?.destroy();
    this.onclose?.();
  }

  /** Reads a POST's answer (JSON or SSE) and makes sure the request gets a response either way. */
  private async readAnswer(res: ResponseLike, id: RequestId, controller: AbortController): Promise<void> {
    let answered = false;
    const take = (text: string) => {
      for (const m of parseMessages(text, (e) => this.fail(e))) {
        if ('id' in m && m.id === id && !('method' in m)) answered = true;
        this.deliver(m, id);
      }
    };
    const type = res.headers.get('content-type') ?? '';
    let why = 'the server closed the response stream before answering';
    try {
      if (type.includes('text/event-stream')) {
        const parser = messageParser(take, this.maxMessage);
        try {
          await readSse(res.body!, parser);
        } catch (error) {
          if (parser.lastEventId === undefined || error instanceof SseLimitError) throw error;
        }
        // A stream that ended unanswered after an event id is resumed with GET + Last-Event-ID (SSE polling, resumability).
        for (
          let attempt = 0;
          !answered && !this.closed && parser.lastEventId !== undefined && attempt < (this.options.maxReconnects ?? 3);
          attempt++
        ) {
          await this.resume(parser, controller, attempt);
        }
      } else if (type.includes('application/json')) {
        take(await readText(res, this.maxMessage));
        why = 'the server answered without a response to the request';
      } else {
        await res.body!.cancel().catch(() => undefined);
        why = `the server answered with content type "${type}"`;
      }
    } catch (error) {
      why = `the response stream failed: ${asError(error).message}`;
    } finally {
      this.untrack(controller, id);
    }
    if (!answered && !this.closed && !controller.signal.aborted) this.deliver(transportError(id, `Request failed: ${why}`), id);
  }

  /** Re-opens a request's stream from its last event id; waits the server's retry delay first (bounded by 5 s). */
  private async resume(parser: ReturnType<typeof messageParser>, controller: AbortController, attempt: number): Promise<void> {
    const wait = Math.min(
      parser.retryMs ?? (attempt === 0 ? 0 : (this.options.reconnectDelayMs ?? 1000)),
      5000,
      this.options.maxRetryDelayMs ?? 60_000,
    );
    if (wait > 0) await new Promise((r) => setTimeout(r, wait).unref());
    if (this.closed) return;
    const headers = await this.headers({ accept: 'text/event-stream', 'last-event-id': parser.lastEventId! });
    let res: ResponseLike;
    try {
      res = await this.fetch(this.url, { method: 'GET', headers, signal: controller.signal });
    } catch (error) {
      if (attempt + 1 >= (this.options.maxReconnects ?? 3)) throw error;
      return; // the network, not the server, said no: try again
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => undefined);
      throw new Error(`HTTP ${res.status} resuming the stream`); // the server cannot resume it
    }
    try {
      await readSse(res.body, parser);
    } catch (error) {
      if (attempt + 1 >= (this.options.maxReconnects ?? 3) || error instanceof SseLimitError) throw error;
    }
  }

  /** The GET stream for server-initiated messages, re-opened with Last-Event-ID when it ends. */
  private async listen(lastEventId?: string, attempt = 0): Promise<void> {
    if (this.closed || this.options.openSseStream === false) return;
    const controller = this.track();
    let retryMs: number | undefined;
    const opened = Date.now();
    let delivered = false;
    try {
      const headers = await this.headers({ accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) });
      const res = await this.fetch(this.url, { method: 'GET', headers, signal: controller.signal });
      if (res.status === 405) return void (await res.body?.cancel().catch(() => undefined));
      if (!res.ok || !res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
        await res.body?.cancel().catch(() => undefined);
        throw new Error(`HTTP ${res.status} opening the GET stream`);
      }
      const parser = messageParser((data) => {
        delivered = true;
        parseMessages(data, (e) => this.fail(e)).forEach((m) => this.deliver(m));
      }, this.maxMessage);
      try {
        await readSse(res.body, parser);
      } finally {
        if (parser.lastEventId !== undefined) lastEventId = parser.lastEventId;
        retryMs = parser.retryMs;
      }
    } catch (error) {
      if (!this.closed) this.fail(new Error(`GET stream: ${asError(error).message}`));
    } finally {
      this.controllers.delete(controller);
    }
    if (this.closed) return;
    // A stream that delivered something, or stayed open a while, was a success: the count starts over.
    if (delivered || Date.now() - opened >= HEALTHY_STREAM_MS) attempt = 0;
    const max = this.options.maxReconnects ?? 3;
    if (attempt >= max)
      return this.fail(
        new Error(`GET stream: gave up after ${max} re-opens in a row without an event; server-initiated messages are no longer received`),
      );
    const delay = Math.min(retryMs ?? this.options.reconnectDelayMs ?? 1000, this.options.maxRetryDelayMs ?? 60_000);
    this.reconnectTimer = setTimeout(() => void this.listen(lastEventId, attempt + 1), delay);
    this.reconnectTimer.unref();
  }

  private async headers(extra: Record<string, string>, perRequest: Record<string, string> = {}): Promise<Record<string, string>> {
    const own = typeof this.options.headers === 'function' ? await this.options.headers() : this.options.headers;
    return {
      ...own,
      ...extra,
      ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
      ...(this.protocolVersion ? { 'mcp-protocol-version': this.protocolVersion } : {}),
      ...perRequest,
    };
  }

  /** Ends a request's exchange: the server sees the connection close, which cancels the request (2026-07-28). */
  private cancelExchange(id: RequestId | undefined): void {
    const controller = id === undefined ? undefined : this.exchanges.get(id);
    if (!controller) return;
    this.exchanges.delete(id!);
    this.controllers.delete(controller);
    controller.abort();
  }

  private untrack(controller: AbortController, id: RequestId | undefined): void {
    this.controllers.delete(controller);
    if (id !== undefined && this.exchanges.get(id) === controller) this.exchanges.delete(id);
  }

  private track(): AbortController {
    const controller = new AbortController();
    this.controllers.add(controller);
    return controller;
  }

  private deliver(message: ClientMessage, relatedRequestId?: RequestId): void {
    if (this.initializeId !== undefined && message.id === this.initializeId && !('method' in message)) {
      const version = (message.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      if (typeof version === 'string') this.protocolVersion = version;
      this.initializeId = undefined;
    }
    deliverMessage(this, message, relatedRequestId === undefined ? undefined : { relatedRequestId });
  }

  private fail(error: Error): void {
    reportError(this, error);
  }
}

/** A transport that speaks MCP over Streamable HTTP to `url`. */
export function streamableHttpClientTransport(url: string | URL, options: StreamableHttpClientOptions = {}): StreamableHttpClientTransport {
  return new StreamableHttpClientTransport(url, options);
}
