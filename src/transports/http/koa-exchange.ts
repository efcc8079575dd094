import type Koa from 'koa';
import { readBody } from '../../http/body';
import type { NetworkFacts } from '../../observability/telemetry-options';
import type { HttpExchange, SseSink } from './http-exchange';

/**
 * The Koa front door's exchange: a Koa context, its request read from Node's own (headers, body) and
 * answered through Koa (ctx.status, ctx.body), so that the app's own middleware sees the answer. Only an SSE stream
 * takes Node's response from Koa (openStream says why).
 */
export class KoaExchange implements HttpExchange {
  constructor(private readonly ctx: Koa.ParameterizedContext) {}

  get method(): string {
    return this.ctx.method;
  }

  get path(): string {
    return this.ctx.path;
  }

  get url(): string {
    return this.ctx.url;
  }

  get headers(): Readonly<Record<string, string | string[] | undefined>> {
    return this.ctx.req.headers;
  }

  get network(): NetworkFacts {
    // The socket's own peer, not ctx.ip: X-Forwarded-For is the client's word, trusted only where the app says.
    const { remoteAddress, remotePort } = this.ctx.socket;
    return { peerAddress: remoteAddress, peerPort: remotePort, httpVersion: this.ctx.req.httpVersion };
  }

  get clientGone(): boolean {
    return this.ctx.req.destroyed;
  }

  get started(): boolean {
    return this.ctx.respond === false || this.ctx.headerSent;
  }

  header(name: string): string {
    // Node's own header object, as ctx.get reads it: a repeated header joined, a missing one ''.
    const value = this.ctx.req.headers[name];
    return value === undefined ? '' : Array.isArray(value) ? value.join(', ') : value;
  }

  get hasBody(): boolean {
    // As type-is (Koa's ctx.is) decides.
    const { headers } = this.ctx.req;
    const length = headers['content-length'];
    return headers['transfer-encoding'] !== undefined || (length !== undefined && !Number.isNaN(Number(length)));
  }

  query(name: string): string | undefined {
    const value = this.ctx.query[name];
    return typeof value === 'string' ? value : undefined;
  }

  async readText(limit: number): Promise<string> {
    return (await readBody(this.ctx.req, limit)).toString('utf8');
  }

  onClose(listener: () => void): () => void {
    const { res } = this.ctx;
    res.once('close', listener);
    return () => res.off('close', listener);
  }

  setHeader(name: string, value: string): void {
    this.ctx.set(name, value);
  }

  removeHeader(name: string): void {
    this.ctx.remove(name);
  }

  vary(field: string): void {
    this.ctx.vary(field);
  }

  reply(status: number, body?: string, contentType?: string): void {
    const { ctx } = this;
    // The body first: Koa picks a status for a body set after it (and writes the status text when there is none).
    if (body === undefined) ctx.body = null;
    else {
      if (contentType) ctx.type = contentType;
      ctx.body = body;
    }
    ctx.status = status;
  }

  openStream(headers: Record<string, string>): SseSink {
    const { ctx } = this;
    ctx.status = 200;
    ctx.set(headers);
    // Koa writes a body once the middleware returns, and a streamed body through whatever the app put
    // around it (a compressor buffers). An SSE stream's headers go out now and its events as they
    // happen, long after: Koa hands Node's response over (respond = false) and it is written directly.
    ctx.respond = false;
    const { res } = ctx;
    res.flushHeaders();
    return {
      write: (chunk) => void res.write(chunk),
      end: () => res.end(),
      onClose: (listener) => void res.on('close', listener),
    };
  }

  abort(): void {
    this.ctx.respond = false;
    if (!this.ctx.res.writableEnded) this.ctx.res.end();
  }
}
