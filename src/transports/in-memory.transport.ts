import type { JsonRpcMessage } from '../mcp/json-rpc';
import { checkMessage, encodeMessage } from '../protocol/wire';
import type { InboundSink, MessageTransport } from './message-transport';

/**
 * The client end of an in-memory pair. Its shape is the official SDK's `Transport`, so an SDK
 * `Client` can connect to it directly, as can `McpTestClient`.
 */
export interface ClientTransport {
  onmessage?(message: WireMessage): void;
  onclose?(): void;
  onerror?(error: Error): void;
  sessionId?: string;
  start(): Promise<void>;
  send(message: WireMessage): Promise<void>;
  close(): Promise<void>;
}

/** Any JSON-RPC 2.0 message, loosely typed so that other libraries' message types fit. */
export type WireMessage = { jsonrpc: '2.0' } & { [key: string]: unknown };

/** Delivers a copy as it would arrive over a wire, one macrotask later, in order. */
function deliver(message: JsonRpcMessage, to: (m: JsonRpcMessage) => void): void {
  const copy = JSON.parse(encodeMessage(message)) as JsonRpcMessage;
  setImmediate(() => to(copy));
}

class ServerEnd implements MessageTransport {
  peer!: ClientEnd;
  inbound?: InboundSink;
  private closed?: () => void;
  private isClosed = false;

  start(inbound: InboundSink, closed: () => void): void {
    this.inbound = inbound;
    this.closed = closed;
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.isClosed) return;
    deliver(message, (m) => this.peer.onmessage?.(m as unknown as WireMessage));
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.closed?.();
    setImmediate(() => this.peer.shutdown());
  }

  shutdown(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.closed?.();
  }
}

class ClientEnd implements ClientTransport {
  onmessage?: (message: WireMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private isClosed = false;

  constructor(private readonly server: ServerEnd) {}

  async start(): Promise<void> {}

  async send(message: WireMessage): Promise<void> {
    if (this.isClosed) throw new Error('Transport closed');
    const text = JSON.stringify(message);
    setImmediate(() => this.server.inbound?.(checkMessage(JSON.parse(text))));
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.shutdown();
    setImmediate(() => this.server.shutdown());
  }

  shutdown(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.onclose?.();
  }
}

/** A connected client/server transport pair living in one process, for tests and embedding. */
export function createInMemoryTransportPair(): { client: ClientTransport; server: MessageTransport } {
  const server = new ServerEnd();
  const client = new ClientEnd(server);
  server.peer = client;
  return { client, server };
}
