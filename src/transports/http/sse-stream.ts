import type { ServerResponse } from 'node:http';
import type { JsonRpcMessage } from '../../mcp/json-rpc';
import { encodeMessage } from '../../protocol/wire';

/** Writes Server-Sent Events to one HTTP response. */
export class SseConnection {
  private open = true;

  constructor(
    readonly res: ServerResponse,
    private readonly onClose: () => void,
  ) {
    res.on('close', () => this.closed());
  }

  /** Sends the status line and headers. */
  static begin(res: ServerResponse, headers: Record<string, string>): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      ...headers,
    });
    res.flushHeaders();
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
    this.res.end();
    this.onClose();
  }

  private write(chunk: string): void {
    if (this.open) this.res.write(chunk);
  }

  private closed(): void {
    if (!this.open) return;
    this.open = false;
    this.onClose();
  }
}
