import type { JsonRpcMessage } from '../mcp/json-rpc';
import type { DecodeResult } from '../protocol/wire';

/** Receives what a transport read: a checked message, or the error response a bad one earns. */
export type InboundSink = (input: DecodeResult) => void;

/**
 * A bidirectional message stream to one client (stdio, an in-memory pair, a socket...). The
 * application binds one protocol session to it.
 */
export interface MessageTransport {
  /** Starts reading; `closed` is called once when the peer goes away. */
  start(inbound: InboundSink, closed: () => void): void | Promise<void>;
  send(message: JsonRpcMessage): Promise<void>;
  /** Stops reading and releases the stream. */
  close(): Promise<void>;
}
