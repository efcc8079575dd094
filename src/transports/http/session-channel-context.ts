import type { JsonRpcMessage } from '../../mcp/json-rpc';
import type { EventStore } from './event-store';
import type { SessionCluster } from './session-cluster';
import type { SseConnection } from './sse-stream';
import type { ChannelContext } from './stream-channel';

/** What the streams of every session of a transport share. */
export interface ChannelHost {
  readonly retryMs: number;
  readonly eventStore?: EventStore;
  /** With shared sessions: the instances' cluster. */
  readonly cluster?: SessionCluster;
  track(connection: SseConnection, open: boolean): void;
  logError(message: string, error?: unknown): void;
}

/**
 * The ChannelContext of one session: its id over what the transport's sessions share. A server holds
 * thousands of sessions, and each keeps this one small object; what a stream needs of it (its headers,
 * where its events are stored) is made when the stream needs it.
 */
export class SessionChannelContext implements ChannelContext {
  readonly publish?: ChannelContext['publish'];

  constructor(
    private readonly host: ChannelHost,
    private readonly sessionId: string,
  ) {
    const cluster = host.cluster;
    if (cluster) {
      this.publish = (streamId: string, eventId: string | undefined, message: JsonRpcMessage, final: boolean) =>
        cluster.publish(sessionId, streamId, eventId, message, final);
    }
  }

  get store(): ChannelContext['store'] {
    const events = this.host.eventStore;
    return events && { sessionId: this.sessionId, events };
  }

  get retryMs(): number {
    return this.host.retryMs;
  }

  get headers(): Record<string, string> {
    return { 'Mcp-Session-Id': this.sessionId };
  }

  track(connection: SseConnection, open: boolean): void {
    this.host.track(connection, open);
  }

  logError(message: string, error?: unknown): void {
    this.host.logError(message, error);
  }
}
