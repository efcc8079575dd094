import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/** What the Streamable HTTP client transport asks of a fetch: the subset of `fetch` it uses. */
export type FetchLike = (
  url: string | URL,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<ResponseLike>;

/** The subset of `Response` the transport reads. */
export interface ResponseLike {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  /** The body as a web stream (built on first use: event streams only), or cancelled. */
  readonly body: { getReader(): ReadableStreamDefaultReader<Uint8Array>; cancel(): Promise<void> } | null;
  text(): Promise<string>;
}

/**
 * A fetch on `node:http` with a keep-alive agent per transport. Node's global fetch (undici) costs
 * several hundred microseconds of CPU per request under load (web streams, its own pipeline), which
 * made a proxied call cost ~1 ms per hop; this one costs what `node:http` costs. Close the agents
 * with `destroy()` when the transport closes.
 */
export function nodeFetch(): FetchLike & { destroy(): void } {
  const http = new HttpAgent({ keepAlive: true });
  const https = new HttpsAgent({ keepAlive: true });
  const fetchLike = (input: string | URL, init: Parameters<FetchLike>[1]) =>
    new Promise<ResponseLike>((resolve, reject) => {
      const url = typeof input === 'string' ? new URL(input) : input;
      if (init.signal?.aborted) return reject(abortError(init.signal));
      const secure = url.protocol === 'https:';
      const send = secure ? httpsRequest : httpRequest;
      const body = init.body === undefined ? undefined : Buffer.from(init.body);
      const headers = body ? { ...init.headers, 'content-length': String(body.length) } : init.headers;
      const req = send(url, { method: init.method, headers, agent: secure ? https : http, signal: init.signal });
      req.once('response', (res) => resolve(new NodeResponse(res)));
      req.once('error', (error) => reject(init.signal?.aborted ? abortError(init.signal) : error));
      req.end(body);
    });
  return Object.assign(fetchLike, {
    destroy: () => {
      http.destroy();
      https.destroy();
    },
  });
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return Object.assign(new Error(typeof reason === 'string' ? reason : 'This operation was aborted'), { name: 'AbortError' });
}

class NodeResponse implements ResponseLike {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  private stream?: ReadableStream<Uint8Array>;

  constructor(private readonly res: IncomingMessage) {
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.headers = {
      get: (name) => {
        const value = res.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    };
  }

  get body(): ResponseLike['body'] {
    return {
      getReader: () => (this.stream ??= Readable.toWeb(this.res) as ReadableStream<Uint8Array>).getReader(),
      cancel: async () => {
        // A finished or short body is drained, so the connection goes back to the agent; an open stream is cut.
        if (this.res.complete || this.headers.get('content-type')?.includes('text/event-stream') !== true) this.res.resume();
        else this.res.destroy();
      },
    };
  }

  /** The whole body, up to 64 MiB (past it, the connection is cut and the read fails). */
  text(): Promise<string> {
    return this.textUpTo(64 * 1024 * 1024, false);
  }

  /** The body up to `maxBytes`; past it the connection is cut, and the text so far returned (`truncate`) or the read failed. */
  async textUpTo(maxBytes: number, truncate: boolean): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of this.res) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        this.res.destroy();
        if (!truncate) throw new Error(`the body is larger than ${maxBytes} bytes`);
        break;
      }
    }
    return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
  }
}
