import type { FetchLike } from './node-fetch';

export interface StreamableHttpClientOptions {
  /** Sent with every HTTP request (say, Authorization); a function is asked before each one. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /**
   * The fetch to use (the global `fetch`, or a wrapper adding retries, proxies…). Default: a fetch on
   * `node:http` with a keep-alive agent, several times cheaper in CPU than Node's global fetch.
   */
  fetch?: FetchLike;
  /** Open the GET SSE stream after initialize for server-initiated messages. Default true. */
  openSseStream?: boolean;
  /**
   * How often in a row a GET stream is re-opened (with Last-Event-ID) when it fails or ends without
   * delivering anything, before giving up (reported to onerror). A stream that delivered an event or
   * stayed open a minute resets the count. Default 3.
   */
  maxReconnects?: number;
  /** Delay before re-opening the GET stream when the server suggests none. Default 1000 ms. */
  reconnectDelayMs?: number;
  /** Longest delay honoured from a server's SSE `retry:` field. Default 60 000 ms. */
  maxRetryDelayMs?: number;
  /** Biggest message accepted: a JSON body, or one SSE event. Past it the request fails. Default 64 MiB. */
  maxMessageBytes?: number;
}

/** A GET stream open this long counts as a success (the reconnect count starts over). */
export const HEALTHY_STREAM_MS = 60_000;
