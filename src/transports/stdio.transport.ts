import type { Readable, Writable } from 'node:stream';
import type { StdioAuthOptions } from '../auth/resource-server-options';
import { ErrorCode, errorResponse, type JsonRpcMessage } from '../mcp/json-rpc';
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

const DONE: Promise<void> = Promise.resolve();

/** Newline-delimited JSON-RPC over a process's stdin and stdout. */
export class StdioTransport implements MessageTransport {
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxBytes: number;
  private detach?: () => void;
  /** The output failed (EPIPE: the client closed its end): nothing more is written. */
  private outputFailed = false;
  /** Keeps a late write error from becoming an uncaught 'error' event: it is expected once the client left. */
  private readonly onOutputError = () => {
    if (this.outputFailed) return;
    this.outputFailed = true;
    const closed = this.outputClosed;
    this.stopInput(); // nothing read now could be answered; and an open stdin would keep the process alive
    closed?.();
  };
  private outputClosed?: () => void;
  /** The lines sent in this turn of the event loop, written together at its end. */
  private batch = '';
  /** Settles once this turn's batch was handed to the output (made with the turn's first message). */
  private flushed?: Promise<void>;

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

  /**
   * Sends the message as one line. The lines of one turn of the event loop leave together, in the order
   * they were sent, in one write at the end of the turn (64 answers to one chunk of requests are one
   * write, not 64). Resolves once that write was handed to the output, so that a handler awaiting a
   * notification (`await ctx.progress(...)`) goes on only after it left: what it sends next leaves in a
   * later write. A write error ends the connection (see onOutputError) rather than this promise.
   */
  send(message: JsonRpcMessage): Promise<void> {
    if (!this.output.writable || this.outputFailed) return DONE;
    this.batch += `${encodeMessage(message)}\n`;
    this.flushed ??= new Promise<void>((resolve) => setImmediate(() => this.flush(resolve)));
    return this.flushed;
  }

  private flush(done: () => void): void {
    const batch = this.batch;
    this.batch = '';
    this.flushed = undefined;
    if (!this.output.writable || this.outputFailed) return done();
    // The callback runs once the write left (or failed: onOutputError has the error).
    this.output.write(batch, () => done());
  }

  private stopInput(): void {
    this.detach?.();
    this.detach = undefined;
    this.outputClosed = undefined;
    this.input.pause();
    if (this.input === process.stdin) process.stdin.unref?.();
  }

  /** Stops reading; what was sent in this turn still leaves. */
  async close(): Promise<void> {
    this.stopInput();
    await this.flushed;
  }
}
