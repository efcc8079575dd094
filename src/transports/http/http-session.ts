import { isResponse, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from '../../mcp/json-rpc';
import type { Connection } from '../../protocol/connection';
import type { TransportExtra } from '../../protocol/request-scope';
import type { HttpExchange } from './http-exchange';
import type { AnswerTarget } from './request-answer';
import type { ChannelContext } from './stream-channel';
import { StreamChannel } from './stream-channel';

/** The standalone (GET) stream's id within a session. */
export const STANDALONE_STREAM = 'g';

/**
 * A session as HTTP sees it: its protocol session, the live stream of each request in flight, and
 * the standalone stream for messages that belong to no request.
 */
export class HttpSession implements AnswerTarget {
  /**
   * The live stream of each request in flight, and live request streams by stream id (for
   * resumption): made with a session's first request and dropped when it has none left, as a server
   * holds thousands of sessions that wait for their clients.
   */
  private requests?: Map<RequestId, StreamChannel>;
  private streams?: Map<string, StreamChannel>;
  /** The answers still open, by request: the first message for one opens its stream (see pend). */
  private pending?: Map<RequestId, { exchange: HttpExchange; streaming: () => void }>;
  private standaloneChannel?: StreamChannel;
  lastActivity = Date.now();
  private nextStream = 0;
  session!: Connection;

  constructor(
    readonly id: string | undefined,
    readonly owner: string | undefined,
    private readonly channelContext: ChannelContext,
  ) {}

  /** True while a client holds the standalone stream open here. */
  get standaloneConnected(): boolean {
    return this.standaloneChannel?.connected ?? false;
  }

  /** The stream for messages that belong to no request (created on first use: most requests need none). */
  get standalone(): StreamChannel {
    this.standaloneChannel ??= new StreamChannel(STANDALONE_STREAM, this.channelContext);
    return this.standaloneChannel;
  }

  /** Runs one POSTed request in the session. */
  serve(request: JsonRpcRequest, extra: TransportExtra): Promise<JsonRpcResponse | undefined> {
    return this.session.handleRequest(request, extra);
  }

  streamEnded(): void {
    this.lastActivity = Date.now();
  }

  pend(id: RequestId, exchange: HttpExchange, streaming: () => void): boolean {
    if (this.pending?.has(id) || this.requests?.has(id)) return false;
    (this.pending ??= new Map()).set(id, { exchange, streaming });
    return true;
  }

  /** The stream of one POSTed request: opened on its pending answer by its first message. */
  openStream(id: RequestId): StreamChannel | undefined {
    const open = this.requests?.get(id);
    if (open) return open;
    const pending = this.pending?.get(id);
    if (!pending) return undefined;
    this.forgetPending(id);
    const channel = new StreamChannel(`r${++this.nextStream}`, this.channelContext, pending.exchange, id);
    (this.requests ??= new Map()).set(id, channel);
    (this.streams ??= new Map()).set(channel.streamId, channel);
    // Only queues the priming on the channel, and queued work never rejects.
    void channel.startStream();
    pending.streaming();
    return channel;
  }

  streamOf(id: RequestId): StreamChannel | undefined {
    return this.requests?.get(id);
  }

  settle(id: RequestId): void {
    this.forgetPending(id);
    const channel = this.requests?.get(id);
    if (!channel) return;
    this.requests!.delete(id);
    if (this.requests!.size === 0) this.requests = undefined;
    this.forgetStream(channel.streamId);
  }

  private forgetPending(id: RequestId): void {
    if (this.pending?.delete(id) && this.pending.size === 0) this.pending = undefined;
  }

  /** The live request stream with this id. */
  stream(streamId: string): StreamChannel | undefined {
    return this.streams?.get(streamId);
  }

  /** Forgets a request stream that ended. */
  forgetStream(streamId: string): void {
    if (this.streams?.delete(streamId) && this.streams.size === 0) this.streams = undefined;
  }

  /** Routes an outbound message: to its request's stream when that is live (or opens it), else to the standalone stream. */
  route(message: JsonRpcMessage, relatedRequestId?: RequestId, final?: boolean): Promise<void> {
    const key = isResponse(message) ? (message.id ?? undefined) : relatedRequestId;
    const channel = key === undefined ? undefined : this.openStream(key);
    // The request's stream broke (logged there, its client told): its later messages have nowhere to go.
    if (channel?.failed) return Promise.resolve();
    if (channel && channel.state !== 'done') return final ? channel.finish(message) : channel.send(message);
    return this.standalone.send(message);
  }

  /** A local stand-in for a request stream that lives on another instance (see SessionCluster.follow). */
  follower(streamId: string): StreamChannel {
    let channel = this.streams?.get(streamId);
    if (!channel) {
      channel = new StreamChannel(streamId, this.channelContext);
      (this.streams ??= new Map()).set(streamId, channel);
    }
    return channel;
  }

  /** A stream that already finished, for replaying what it sent after a given event. */
  finishedStream(streamId: string): StreamChannel {
    const channel = new StreamChannel(streamId, this.channelContext);
    channel.state = 'done';
    return channel;
  }

  get busy(): boolean {
    return this.requests !== undefined || this.pending !== undefined || this.session.inflightCount > 0;
  }

  /** Ends every stream for good. */
  async endStreams(): Promise<void> {
    const channels = [...(this.requests?.values() ?? []), ...(this.standaloneChannel ? [this.standaloneChannel] : [])];
    await Promise.allSettled(channels.map((c) => c.finish()));
  }
}
