import type { JsonRpcMessage } from '../../src/mcp/json-rpc';
import type { InboundSink, MessageTransport } from '../../src/transports/message-transport';
import { waitFor } from './wait-for';

/** A message the server sent, as tests read it. */
export type Frame = {
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown> & { inputRequests?: Record<string, unknown>; requestState?: string; content?: { text: string }[] };
  error?: { code: number; message?: string; data?: Record<string, unknown> };
};

/**
 * A message transport (stdio's shape) that a test drives by hand: what the server sends is recorded in
 * `sent`, what the client sends is injected with `deliver`, and `request` waits for the answer.
 */
export class RawTransport implements MessageTransport {
  readonly sent: Frame[] = [];
  private inbound?: InboundSink;
  private closed?: () => void;

  start(inbound: InboundSink, closed: () => void): void {
    this.inbound = inbound;
    this.closed = closed;
  }

  async send(message: JsonRpcMessage): Promise<void> {
    this.sent.push(message as Frame);
  }

  async close(): Promise<void> {
    this.closed?.();
  }

  deliver(message: Record<string, unknown>): void {
    this.inbound!({ ok: true, message: { jsonrpc: '2.0', ...message } as JsonRpcMessage });
  }

  /** Sends a request and resolves with the server's answer to it. */
  async request(message: Record<string, unknown>): Promise<Frame> {
    this.deliver(message);
    await waitFor(() => this.sent.some((f) => f.id === message.id && ('result' in f || 'error' in f)), {
      what: `the answer to ${String(message.id)}`,
    });
    return this.sent.find((f) => f.id === message.id && ('result' in f || 'error' in f))!;
  }

  /** The peer hangs up (stdin ends). */
  hangUp(): void {
    this.closed?.();
  }
}
