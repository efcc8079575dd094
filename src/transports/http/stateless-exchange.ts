import {
  isResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '../../mcp/json-rpc';
import type { MessageSink } from '../../protocol/connection';
import type { PeerState } from '../../protocol/peer';
import type { StatelessRequest } from '../../protocol/stateless-request';
import type { TransportExtra } from '../../protocol/request-scope';
import type { HttpExchange } from './http-exchange';
import type { AnswerTarget } from './request-answer';
import { type ChannelContext, StreamChannel } from './stream-channel';

/** The engine's entry points for what arrives with no session (see ProtocolEngine.serveStateless). */
export interface StatelessServer {
  serveStateless(request: JsonRpcRequest, extra: TransportExtra, peer: PeerState, sink: MessageSink): StatelessRequest;
  receiveStateless(message: JsonRpcNotification | JsonRpcResponse, peer: PeerState): void;
}

/**
 * One POSTed request served with no session (a 2026-07-28 request, or any request when the `sessions`
 * option is off): the engine's handle on it and, once its handler sends something before answering,
 * the request's one stream. Its messages go on that stream only: with no session there is no standalone
 * stream, so a message for anything else (or after the stream ended) reaches no one.
 */
export class StatelessExchange implements AnswerTarget {
  readonly id = undefined;
  private requestId?: RequestId;
  /** The answer still open, until the first message opens the stream on it or the response goes out. */
  private pending?: HttpExchange;
  private streaming?: () => void;
  private channel?: StreamChannel;
  private served?: StatelessRequest;

  constructor(
    private readonly server: StatelessServer,
    private readonly channelContext: ChannelContext,
    private readonly peer: PeerState,
  ) {}

  serve(request: JsonRpcRequest, extra: TransportExtra): Promise<JsonRpcResponse | undefined> {
    this.served = this.server.serveStateless(request, extra, this.peer, (message, related, final) => this.route(message, related, final));
    return this.served.response;
  }

  /** Always holds it: the exchange carries one request. */
  pend(id: RequestId, exchange: HttpExchange, streaming: () => void): boolean {
    this.requestId = id;
    this.pending = exchange;
    this.streaming = streaming;
    return true;
  }

  openStream(id: RequestId): StreamChannel | undefined {
    if (id !== this.requestId) return undefined;
    if (!this.channel && this.pending) {
      this.channel = new StreamChannel('r1', this.channelContext, this.pending, id);
      this.pending = undefined;
      // Only queues the priming on the channel, and queued work never rejects.
      void this.channel.startStream();
      this.streaming?.();
    }
    return this.channel;
  }

  streamOf(id: RequestId): StreamChannel | undefined {
    return id === this.requestId ? this.channel : undefined;
  }

  settle(id: RequestId): void {
    if (id !== this.requestId) return;
    this.pending = undefined;
    this.streaming = undefined;
    this.channel = undefined;
  }

  /** The exchange is over (answered, or its client left): the request ends, if it still runs. */
  close(): void {
    this.served?.close();
  }

  private route(message: JsonRpcMessage, relatedRequestId?: RequestId, final?: boolean): Promise<void> {
    const key = isResponse(message) ? (message.id ?? undefined) : relatedRequestId;
    const channel = key === undefined ? undefined : this.openStream(key);
    // The stream broke (logged there, its client told), or ended: what comes later has nowhere to go.
    if (!channel || channel.failed || channel.state === 'done') return Promise.resolve();
    return final ? channel.finish(message) : channel.send(message);
  }
}
