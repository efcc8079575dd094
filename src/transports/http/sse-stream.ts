import type { JsonRpcMessage } from '../../mcp/json-rpc';
import { encodeMessage } from '../../protocol/wire';
import type { HttpExchange, SseSink } from './http-exchange';

/** Writes Server-Sent Events to one HTTP response. */
export class SseConnection {
  private open = true;

  constructor(
    private readonly sink: SseSink,
    private readonly onClose: () => void,
  ) {
    sink.onClose(() => this.closed());
  }

  /** Answers the exchange with an SSE stream (its status and headers go out at once). */
  static begin(exchange: HttpExchange, headers: Record<string, string>): SseSink {
    return exchange.openStream({
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      ...headers,
    });
  }

  get isOpen(): boolean {
    return this.open;
  }

  /** A priming event: an id and empty data, plus the reconnection delay. */
  prime(eventId: string, retryMs: number): void {
    this.write(`id: ${eventId}\nretry: ${retryMs}\ndata: \n\n`);
  }

  send(message: JsonRpcMessage, eventId?: string): void {
    this.sendSerialized(encodeMessage(message), eventId);
  }

  /** Sends a message already serialized by encodeMessage. */
  sendSerialized(json: string, eventId?: string): void {
    this.write(`${eventId === undefined ? '' : `id: ${eventId}\n`}event: message\ndata: ${json}\n\n`);
  }

  /** The first event of a 2024-11-05 HTTP+SSE stream: where the client POSTs its messages. */
  endpoint(url: string): void {
    this.write(`event: endpoint\ndata: ${url}\n\n`);
  }

  keepAlive(): void {
    this.write(': keep-alive\n\n');
  }

  /** Ends the response (the SSE stream may go on: a client can resume it). */
  end(): void {
    if (!this.open) return;
    this.open = false;
    this.sink.end();
    this.onClose();
  }

  private write(chunk: string): void {
    if (this.open) this.sink.write(chunk);
  }

  private closed(): void {
    if (!this.open) return;
    this.open = false;
    this.onClose();
  }
}
