import type Koa from 'koa';
import { readBody } from './body';
import type { HttpExchange, NetworkFacts, SseSink } from './http-exchange';

/** The Koa front door's exchange: a Koa context, whose replies Koa writes and whose streams go straight to Node's response. */
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
    const { socket, httpVersion } = this.ctx.req;
    return { peerAddress: socket.remoteAddress, peerPort: socket.remotePort, httpVersion };
  }

  get clientGone(): boolean {
    return this.ctx.req.destroyed;
  }

  get started(): boolean {
    return this.ctx.respond === false || this.ctx.headerSent;
  }

  header(name: string): string {
    // Node's headers, as Koa's ctx.get reads them, without its delegation or its lowercasing: every request
    // reads several, each by a literal name in lower case (HttpExchange.header).
    const value = this.ctx.req.headers[name];
    return typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : '';
  }

  accepts(type: string): boolean {
    // Koa takes a request without Accept as accepting anything; the MCP endpoint requires the header.
    return this.ctx.get('accept') !== '' && this.ctx.accepts(type) !== false;
  }

  bodyIs(type: string): boolean {
    // null without a body, false for another type, else the type matched.
    return this.ctx.is(type) === type;
  }

  query(name: string): string | undefined {
    const value = this.ctx.query[name];
    return typeof value === 'string' ? value : undefined;
  }

  readBody(limit: number, timeoutMs: number): Promise<Uint8Array> {
    return readBody(this.ctx.req, limit, timeoutMs);
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
    const { res } = this.ctx;
    this.ctx.respond = false;
    res.writeHead(200, headers);
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
