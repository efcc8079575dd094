import { BodyTooLargeError } from '../../http/body-too-large.error';
import type { NetworkFacts } from '../../observability/telemetry-options';
import { declaredLength, type HttpExchange, type SseSink } from './http-exchange';

const encoder = new TextEncoder();
/** A leading byte-order mark is kept, as JSON does not allow one: such a body is a parse error on every runtime. */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The fetch front door's exchange: a web-standard `Request`, answered by building a `Response`
 * (`response()`, once the endpoint has started the answer). An SSE answer is a ReadableStream the
 * endpoint keeps writing to; the client going away cancels it.
 */
export class FetchExchange implements HttpExchange {
  readonly method: string;
  readonly path: string;
  readonly url: string;
  readonly hasBody: boolean;
  private status = 404;
  private body: string | ReadableStream<Uint8Array> | null = 'Not Found';
  private readonly answerHeaders = new Headers({ 'Content-Type': 'text/plain; charset=utf-8' });
  private answered = false;
  private streamClosed = false;
  private readonly closeListeners = new Set<() => void>();
  private headerRecord?: Record<string, string>;
  /** Ends the SSE answer, once there is one. */
  private endStream?: () => void;

  constructor(
    private readonly request: Request,
    readonly network: NetworkFacts = {},
  ) {
    const url = new URL(request.url);
    this.method = request.method;
    this.path = url.pathname;
    this.url = url.pathname + url.search;
    const { headers } = request;
    this.hasBody = request.body !== null || headers.has('content-length') || headers.has('transfer-encoding');
    request.signal?.addEventListener('abort', () => this.closed(), { once: true });
  }

  get headers(): Readonly<Record<string, string>> {
    // Headers iterate with lower-case names and repeated values joined, as Node gives a request's headers.
    if (!this.headerRecord) {
      const record: Record<string, string> = {};
      this.request.headers.forEach((value, name) => (record[name] = value));
      this.headerRecord = record;
    }
    return this.headerRecord;
  }

  get clientGone(): boolean {
    return this.request.signal?.aborted === true || this.streamClosed;
  }

  get started(): boolean {
    return this.answered;
  }

  header(name: string): string {
    return this.request.headers.get(name) ?? '';
  }

  query(name: string): string | undefined {
    const values = new URL(this.request.url).searchParams.getAll(name);
    return values.length === 1 ? values[0] : undefined;
  }

  async readText(limit: number): Promise<string> {
    return utf8.decode(await this.readBody(limit));
  }

  private async readBody(limit: number): Promise<Uint8Array> {
    const declared = declaredLength(this);
    if (declared !== undefined && declared > limit) throw new BodyTooLargeError();
    const reader = this.request.body?.getReader();
    if (!reader) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
        if (done || !value) break;
        size += value.byteLength;
        if (size > limit) throw new BodyTooLargeError();
        chunks.push(value);
      }
    } catch (error) {
      reader.cancel().catch(() => undefined); // the rest of the body is not wanted; its stream's own failure is not news
      throw error;
    }
    if (chunks.length === 1) return chunks[0];
    const body = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      body.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return body;
  }

  onClose(listener: () => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  setHeader(name: string, value: string): void {
    this.answerHeaders.set(name, value);
  }

  removeHeader(name: string): void {
    this.answerHeaders.delete(name);
  }

  vary(field: string): void {
    this.answerHeaders.append('Vary', field);
  }

  reply(status: number, body?: string, contentType?: string): void {
    this.answered = true;
    this.status = status;
    this.body = body ?? null;
    if (body === undefined || !contentType) this.answerHeaders.delete('Content-Type');
    // Koa names the charset of a text type; both front doors answer alike.
    else this.answerHeaders.set('Content-Type', `${contentType}; charset=utf-8`);
  }

  openStream(headers: Record<string, string>): SseSink {
    this.answered = true;
    this.status = 200;
    for (const [name, value] of Object.entries(headers)) this.answerHeaders.set(name, value);
    // A web runtime manages its connections itself.
    this.answerHeaders.delete('Connection');
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let ended = false;
    const sinkListeners: (() => void)[] = [];
    const close = () => {
      if (ended) return;
      ended = true;
      for (const listener of sinkListeners) listener();
      this.closed();
    };
    this.body = new ReadableStream<Uint8Array>({
      start: (c) => void (controller = c),
      cancel: () => close(),
    });
    this.onClose(close);
    this.endStream = () => {
      if (ended) return;
      controller.close();
      close();
    };
    return {
      write: (chunk) => {
        if (!ended) controller.enqueue(encoder.encode(chunk));
      },
      end: this.endStream,
      onClose: (listener) => void sinkListeners.push(listener),
    };
  }

  abort(): void {
    this.endStream?.();
  }

  /** The answer as it stands; an SSE body goes on being written after. */
  response(): Response {
    const body = this.method === 'HEAD' ? null : this.body;
    return new Response(body, { status: this.status, headers: this.answerHeaders });
  }

  /** The stream ended, or the client went away: told once to whoever listens. */
  private closed(): void {
    if (this.streamClosed) return;
    this.streamClosed = true;
    const listeners = [...this.closeListeners];
    this.closeListeners.clear();
    for (const listener of listeners) listener();
  }
}
