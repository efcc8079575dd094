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
 * option is off): the request's one stream, once its answer may become SSE, and the engine's handle
 * on it. Its messages go on that stream only: with no session there is no standalone stream, so a
 * message for anything else (or after the stream ended) reaches no one.
 */
export class StatelessExchange implements AnswerTarget {
  readonly id = undefined;
  private channel?: StreamChannel;
  private requestId?: RequestId;
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

  openRequest(id: RequestId, exchange: HttpExchange): StreamChannel {
    this.requestId = id;
    this.channel = new StreamChannel('r1', this.channelContext, exchange, id);
    return this.channel;
  }

  closeRequest(_id: RequestId, channel: StreamChannel): void {
    if (this.channel === channel) this.channel = undefined;
  }

  /** The exchange is over (answered, or its client left): the request ends, if it still runs. */
  close(): void {
    this.served?.close();
  }

  private route(message: JsonRpcMessage, relatedRequestId?: RequestId, final?: boolean): Promise<void> {
    const channel = this.channel;
    const key = isResponse(message) ? (message.id ?? undefined) : relatedRequestId;
    // The stream broke (logged there, its client told), or ended: what comes later has nowhere to go.
    if (!channel || key !== this.requestId || channel.failed || channel.state === 'done') return Promise.resolve();
    return final ? channel.finish(message) : channel.send(message);
  }
}
