import {
  asError,
  deliverMessage,
  describeError as describe,
  reportError,
  type ClientMessage,
  type McpClientTransport,
} from './client-transport';
import { DEFAULT_MAX_MESSAGE_BYTES, httpErrorResponse, parseMessages, readSse, readText, transportError } from './http-response-reader';
import { nodeFetch, type FetchLike, type ResponseLike } from './node-fetch';
import { SseParser, type SseEvent } from './sse-parser';
import type { StreamableHttpClientOptions } from './streamable-http-options';

export interface SseClientOptions extends Pick<StreamableHttpClientOptions, 'headers' | 'fetch' | 'maxMessageBytes'> {
  /** How long start() waits for the stream and its `endpoint` event. Default 30 000 ms. */
  timeoutMs?: number;
}

/**
 * MCP over the HTTP+SSE transport of the 2024-11-05 era: a GET opens an event stream whose first
 * event, `endpoint`, names the URL (same origin only) to POST messages to; the server's messages come
 * as `message` events. A failed POST of a request is delivered as a JSON-RPC error response for its id.
 */
export class SseClientTransport implements McpClientTransport {
  onmessage?: McpClientTransport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  protocolVersion?: string;
  /** Where messages are POSTed, once the server said it. */
  endpoint?: URL;
  private readonly url: URL;
  private readonly fetch: FetchLike;
  private readonly ownFetch?: ReturnType<typeof nodeFetch>;
  private readonly controllers = new Set<AbortController>();
  private started = false;
  private closed = false;

  constructor(
    url: string | URL,
    private readonly options: SseClientOptions = {},
  ) {
    this.url = new URL(url);
    if (options.fetch) this.fetch = options.fetch;
    else this.fetch = this.ownFetch = nodeFetch();
  }

  start(): Promise<void> {
    if (this.started) return Promise.reject(new Error('SseClientTransport already started'));
    this.started = true;
    const ms = this.options.timeoutMs ?? 30_000;
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (error?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!error) return resolve();
        this.shutdown(false);
        reject(error);
      };
      const timer = setTimeout(() => settle(new Error(`SSE ${this.url.href}: no endpoint event within ${ms} ms`)), ms);
      void this.run(settle, () => settled);
    });
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  async send(message: ClientMessage): Promise<void> {
    if (this.closed) throw new Error('Transport closed');
    if (!this.endpoint) throw new Error('Not connected: no endpoint yet');
    const id =
      typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number') ? message.id : undefined;
    const controller = this.track();
    let res: ResponseLike;
    try {
      const headers = await this.headers({
        'content-type': 'application/json',
        ...(this.protocolVersion ? { 'mcp-protocol-version': this.protocolVersion } : {}),
      });
      res = await this.fetch(this.endpoint, { method: 'POST', headers, body: JSON.stringify(message), signal: controller.signal });
    } catch (error) {
      this.controllers.delete(controller);
      if (this.closed) return;
      const why = `HTTP POST failed: ${describe(error)}`;
      if (id === undefined) throw new Error(why, { cause: error });
      return deliverMessage(this, transportError(id, why));
    }
    try {
      if (res.ok) await res.body?.cancel().catch(() => undefined);
      else if (id !== undefined) deliverMessage(this, await httpErrorResponse(res, id));
      else {
        await res.body?.cancel().catch(() => undefined);
        throw new Error(`HTTP ${res.status} for a ${typeof message.method === 'string' ? message.method : 'response'} message`);
      }
    } finally {
      this.controllers.delete(controller);
    }
  }

  async close(): Promise<void> {
    this.shutdown(true);
  }

  /** Opens the stream, settles start() on its `endpoint` event (or the failure), then reads it to its end. */
  private async run(settle: (error?: Error) => void, settled: () => boolean): Promise<void> {
    const controller = this.track();
    const where = `SSE ${this.url.href}`;
    try {
      const res = await this.fetch(this.url, {
        method: 'GET',
        headers: await this.headers({ accept: 'text/event-stream' }),
        signal: controller.signal,
      });
      if (!res.ok) {
        const text = (await readText(res, 8 * 1024, true).catch(() => '')).trim();
        return settle(
          new Error(`${where}: HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${text ? `: ${text.slice(0, 200)}` : ''}`),
        );
      }
      const type = res.headers.get('content-type') ?? '';
      if (!type.includes('text/event-stream') || !res.body) {
        await res.body?.cancel().catch(() => undefined);
        return settle(new Error(`${where}: the server answered with content type "${type}", not text/event-stream`));
      }
      const max = this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
      await readSse(res.body, new SseParser((event) => this.event(event, settle), Math.min(16 * 1024 * 1024, max), max));
      settle(new Error(`${where}: the stream ended before the endpoint event`));
    } catch (error) {
      if (!settled()) return settle(new Error(`${where}: ${describe(error)}`));
      if (!this.closed) reportError(this, new Error(`${where}: the stream failed: ${describe(error)}`));
    } finally {
      this.controllers.delete(controller);
    }
    this.shutdown(true);
  }

  private event(event: SseEvent, settle: (error?: Error) => void): void {
    if (event.event === 'message') return parseMessages(event.data, (e) => reportError(this, e)).forEach((m) => deliverMessage(this, m));
    if (event.event !== 'endpoint' || this.endpoint) return;
    let endpoint: URL;
    try {
      endpoint = new URL(event.data.trim(), this.url);
    } catch {
      return settle(new Error(`SSE ${this.url.href}: the endpoint event names no URL: ${event.data.slice(0, 120)}`));
    }
    if (endpoint.origin !== this.url.origin)
      return settle(new Error(`SSE ${this.url.href}: refused an endpoint on another origin (${endpoint.origin})`));
    this.endpoint = endpoint;
    settle();
  }

  /** Aborts what is under way and releases the agents; `notify` tells onclose (once). */
  private shutdown(notify: boolean): void {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.controllers) controller.abort();
    this.controllers.clear();
    this.ownFetch?.destroy();
    if (!notify) return;
    try {
      this.onclose?.();
    } catch (error) {
      reportError(this, asError(error)); // a throwing close handler must not become an unhandled rejection
    }
  }

  private async headers(extra: Record<string, string>): Promise<Record<string, string>> {
    const own = typeof this.options.headers === 'function' ? await this.options.headers() : this.options.headers;
    return { ...own, ...extra };
  }

  private track(): AbortController {
    const controller = new AbortController();
    this.controllers.add(controller);
    return controller;
  }
}

/** A transport that speaks MCP over HTTP+SSE (2024-11-05) to the event stream at `url` (say, https://host/sse). */
export function sseClientTransport(url: string | URL, options: SseClientOptions = {}): SseClientTransport {
  return new SseClientTransport(url, options);
}
