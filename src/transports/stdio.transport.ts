import type { Readable, Writable } from 'node:stream';
import type { StdioAuthOptions } from '../auth/resource-server-options';
import { ErrorCode, errorResponse, isResponse, type JsonRpcMessage } from '../mcp/json-rpc';
import { decodeMessage, encodeMessage } from '../protocol/wire';
import { LineDecoder } from './line-decoder';
import type { InboundSink, MessageTransport } from './message-transport';

export interface StdioOptions {
  /** Largest message accepted, in bytes (default 4 MiB); a longer line is answered with -32600. */
  maxMessageBytes?: number;
  /**
   * Send `console.log`, `info`, `debug` (and the console's other stdout methods) to stderr while the
   * application serves stdio on the process's stdout, so that stdout carries protocol messages only
   * (default true). `false` leaves the console as it is.
   */
  redirectConsole?: boolean;
  input?: Readable;
  output?: Writable;
  /**
   * Authenticates the one client of this process (off by default: the MCP spec has stdio servers take
   * credentials from the environment, not OAuth). The token (MCP_ACCESS_TOKEN by default) is verified
   * once by `listen`, which rejects when it is missing or invalid; every request then sees its AuthInfo.
   */
  auth?: StdioAuthOptions;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** How long a response waits when it closely follows a notification (see send). */
const RESPONSE_AFTER_NOTIFICATION_MS = 8;

/** Newline-delimited JSON-RPC over a process's stdin and stdout. */
export class StdioTransport implements MessageTransport {
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxBytes: number;
  private detach?: () => void;
  /**
   * Responses waiting for the next write: those produced in one turn of the event loop go out in one
   * write. Notifications and requests are written at once (after the queue, to keep the order): a
   * client that handles notifications a tick later than responses (the official SDK does) must see
   * a request's progress before its response arrives.
   */
  private queue: string[] = [];
  private flushScheduled = false;
  /** When a notification or request was last written: responses right after it wait a little longer. */
  private lastNonResponse = 0;
  /** The output failed (EPIPE: the client closed its end): nothing more is written. */
  private outputFailed = false;
  /** Keeps a late write error from becoming an uncaught 'error' event: it is expected once the client left. */
  private readonly onOutputError = () => {
    if (this.outputFailed) return;
    this.outputFailed = true;
    this.queue = [];
    const closed = this.outputClosed;
    this.stopInput(); // nothing read now could be answered; and an open stdin would keep the process alive
    closed?.();
  };
  private outputClosed?: () => void;

  constructor(options: StdioOptions = {}) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  start(inbound: InboundSink, closed: () => void): void {
    const decoder = new LineDecoder(
      this.maxBytes,
      (line) => inbound(decodeMessage(line)),
      () =>
        inbound({
          ok: false,
          error: errorResponse(null, ErrorCode.InvalidRequest, `Message exceeds the maximum size of ${this.maxBytes} bytes`),
        }),
    );
    let ended = false;
    const onData = (chunk: Buffer | string) => decoder.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    const onEnd = () => {
      if (ended) return;
      ended = true;
      decoder.flush();
      closed();
    };
    // A client that closed our stdout is gone as surely as one that closed our stdin.
    this.outputClosed = onEnd;
    this.output.on('error', this.onOutputError);
    this.input.on('data', onData);
    this.input.on('end', onEnd);
    this.input.on('close', onEnd);
    this.input.on('error', onEnd);
    this.detach = () => {
      this.input.off('data', onData);
      this.input.off('end', onEnd);
      this.input.off('close', onEnd);
      this.input.off('error', onEnd);
    };
    this.input.resume();
  }

  send(message: JsonRpcMessage): Promise<void> {
    this.post(message);
    return Promise.resolve();
  }

  /**
   * `send` without its promise (it never waits for anything: a write error ends the connection, see
   * onOutputError): the application's connection writes through this, one promise fewer per message.
   */
  post(message: JsonRpcMessage): void {
    this.queue.push(`${encodeMessage(message)}\n`);
    if (!isResponse(message)) {
      this.flush();
      this.lastNonResponse = Date.now();
      return;
    }
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      const flush = () => {
        this.flushScheduled = false;
        this.flush();
      };
      // A response that closely follows a notification goes out a little later, so that a client
      // reading both in one chunk is less likely (the official SDK drops progress that arrives in the
      // same chunk as the response it belongs to). 2 ms was not enough for a client on a busy machine.
      // Date.now(): `performance` would load perf_hooks (a dozen of Node's modules) at the first response.
      if (Date.now() - this.lastNonResponse < RESPONSE_AFTER_NOTIFICATION_MS) setTimeout(flush, RESPONSE_AFTER_NOTIFICATION_MS);
      else setImmediate(flush);
    }
  }

  private stopInput(): void {
    this.detach?.();
    this.detach = undefined;
    this.outputClosed = undefined;
    this.input.pause();
    if (this.input === process.stdin) process.stdin.unref?.();
  }

  private flush(): void {
    if (this.queue.length === 0) return;
    const chunk = this.queue.length === 1 ? this.queue[0] : this.queue.join('');
    this.queue = [];
    if (this.output.writable && !this.outputFailed) this.output.write(chunk);
  }

  async close(): Promise<void> {
    this.flush();
    this.stopInput();
  }
}
