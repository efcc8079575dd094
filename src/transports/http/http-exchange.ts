import type { NetworkFacts } from '../../observability/telemetry-options';

/** One Server-Sent Events response as it is written: chunks of text, then its end. */
export interface SseSink {
  write(chunk: string): void;
  end(): void;
  /** Called once when the response closes: ended here, or the client went away. */
  onClose(listener: () => void): void;
}

/**
 * One HTTP request and its answer, as the MCP endpoint sees them on any runtime. The endpoint's rules
 * (McpEndpoint and the handlers it routes to) are written against this alone; each front door adapts
 * its own request to it: Koa's context (KoaExchange) or a web-standard `Request` (FetchExchange).
 * The answer is either one reply (status, headers, a text body) or an SSE stream.
 */
export interface HttpExchange {
  readonly method: string;
  /** The URL's path, undecoded. */
  readonly path: string;
  /** The path and query as the client sent them (what the `authenticate` hook is given). */
  readonly url: string;
  /** The request headers, names in lower case (repeated ones as Node gives them). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly network: NetworkFacts;
  /** True once the client went away. */
  readonly clientGone: boolean;
  /** True once the answer's status went out (a reply was sent, or a stream opened). */
  readonly started: boolean;

  /** A request header ('' when absent), by its name in lower case. */
  header(name: string): string;
  /** True when the request declares a body (Content-Length or Transfer-Encoding), or its runtime gave it one. */
  readonly hasBody: boolean;
  /** A query parameter given exactly once; undefined when absent or repeated. */
  query(name: string): string | undefined;
  /**
   * The body as UTF-8 text (a leading byte-order mark kept: JSON does not allow one), refusing with
   * BodyTooLargeError once it passes `limit` bytes; any other rejection is the connection's. How long it
   * may take is the server's to say (Node's `requestTimeout`, a runtime's own).
   */
  readText(limit: number): Promise<string>;
  /** Calls `listener` once when the exchange closes: its answer ended, or its client went away. Returns the unsubscription. */
  onClose(listener: () => void): () => void;

  setHeader(name: string, value: string): void;
  removeHeader(name: string): void;
  /** Adds a field to the Vary header. */
  vary(field: string): void;
  /** Answers with `status` and a text body of `contentType` (no body when `body` is undefined). */
  reply(status: number, body?: string, contentType?: string): void;
  /** Answers 200 with an SSE stream: the headers set so far plus `headers`. */
  openStream(headers: Record<string, string>): SseSink;
  /** Ends an answer that already started, as it stands (a fault after a stream opened). */
  abort(): void;
}

/** The Content-Length a request declares, when it declares one. */
export function declaredLength(exchange: HttpExchange): number | undefined {
  const value = exchange.header('content-length');
  const length = value === '' ? NaN : Number(value);
  return Number.isFinite(length) ? length : undefined;
}
