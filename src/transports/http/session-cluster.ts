import { randomBytes } from 'node:crypto';
import { isNotification, isResponse, type JsonRpcMessage, type RequestId } from '../../mcp/json-rpc';
import type { Connection } from '../../protocol/connection';
import type { HttpExchange } from './http-exchange';
import type { EventStore } from './event-store';
import type { HttpSession } from './http-session';
import { STANDALONE_STREAM } from './http-session';
import type { SessionBackplane, SessionEnvelope, SharedSessionState } from './session-backplane';

/**
 * Serves sessions that live in a SessionBackplane, so that any instance can serve any request:
 * state saved at initialize and on change, replicas restored on demand, client messages handed to
 * the instance waiting for them, server messages handed to the instance holding the client's stream,
 * and terminations seen everywhere.
 */
export class SessionCluster {
  /** Tells this instance's own envelopes apart from the others'. */
  readonly instanceId = randomBytes(8).toString('hex');
  private readonly unsubscribe = new Map<string, () => Promise<void>>();
  private readonly touched = new Map<string, number>();

  constructor(
    readonly backplane: SessionBackplane,
    private readonly ttlMs: number,
    private readonly onTerminated: (http: HttpSession) => Promise<void>,
    private readonly logError: (message: string, error?: unknown) => void,
  ) {}

  /** Saves a new session's state (before its initialize answer goes out) and listens to its channel. */
  async register(http: HttpSession): Promise<void> {
    await this.backplane.save(http.id!, stateOf(http.session, http.owner), this.ttlMs);
    await this.listen(http);
  }

  /** Builds a local replica of a session created elsewhere; undefined when it does not exist. */
  async restore(id: string, build: (state: SharedSessionState) => HttpSession): Promise<HttpSession | undefined> {
    const state = await this.backplane.load(id, this.ttlMs);
    if (!state) return undefined;
    const http = build(state);
    const { protocolVersion, clientInfo, clientCapabilities, logLevel, subscriptions } = state;
    http.session.restore({ peer: { protocolVersion, clientInfo, clientCapabilities, logLevel }, subscriptions });
    await this.listen(http);
    return http;
  }

  /** Keeps the shared session alive while it is used (at most one write a minute). */
  touch(http: HttpSession): void {
    const now = Date.now();
    if (now - (this.touched.get(http.id!) ?? 0) < 60_000) return;
    this.touched.set(http.id!, now);
    void this.backplane.update(http.id!, {}, this.ttlMs).catch((e) => this.logError('Could not refresh a shared session', e));
  }

  /**
   * A client message this instance cannot place (a response to a request another instance sent, a
   * cancellation of a request another instance runs): hand it to the others.
   */
  async forward(http: HttpSession, message: JsonRpcMessage): Promise<void> {
    const local = isResponse(message)
      ? message.id !== null && http.session.awaits(message.id)
      : isNotification(message) && message.method === 'notifications/cancelled'
        ? http.session.runs(message.params?.requestId as RequestId)
        : true;
    if (!local) await this.backplane.publish(http.id!, { kind: 'inbound', message, from: this.instanceId });
  }

  /** Publishes a server message for a stream whose client is connected elsewhere. */
  publish(sessionId: string, streamId: string, eventId: string | undefined, message: JsonRpcMessage, final: boolean): Promise<void> {
    const envelope: SessionEnvelope = { kind: 'event', streamId, eventId, message, from: this.instanceId };
    if (final) envelope.final = true;
    return this.backplane.publish(sessionId, envelope);
  }

  /** Ends a session everywhere (DELETE). */
  async terminate(http: HttpSession): Promise<void> {
    await this.backplane.delete(http.id!);
    await this.backplane.publish(http.id!, { kind: 'terminate', from: this.instanceId });
  }

  /** Stops listening for a session that this instance no longer serves. */
  async forget(id: string): Promise<void> {
    this.touched.delete(id);
    const stop = this.unsubscribe.get(id);
    this.unsubscribe.delete(id);
    await stop?.().catch((e) => this.logError('Could not stop listening to a shared session', e));
  }

  /**
   * Resumes, on this instance, a request stream that lives elsewhere: replays what was stored, then
   * follows what its instance publishes until the stream's last response.
   */
  async follow(http: HttpSession, streamId: string, lastEventId: string, exchange: HttpExchange, events: EventStore): Promise<void> {
    const channel = http.follower(streamId);
    await channel.resume(exchange, async () => (await events.eventsAfter(http.id!, lastEventId))?.events ?? []);
    if (channel.state === 'done') http.forgetStream(streamId);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.unsubscribe.keys()].map((id) => this.forget(id)));
  }

  private async listen(http: HttpSession): Promise<void> {
    const session = http.session;
    session.onStateChange = (change) => {
      void this.backplane
        .update(http.id!, toPatch(session), this.ttlMs)
        .then(() => this.backplane.publish(http.id!, { kind: 'state', change, from: this.instanceId }))
        .catch((e) => this.logError('Could not share a session change', e));
    };
    const stop = await this.backplane.subscribe(http.id!, (envelope) => this.receive(http, envelope));
    this.unsubscribe.set(http.id!, stop);
  }

  private receive(http: HttpSession, envelope: SessionEnvelope): void {
    if (envelope.from === this.instanceId) return;
    switch (envelope.kind) {
      case 'inbound':
        http.session.receive(envelope.message).catch((e) => this.logError('Could not handle a message forwarded by another instance', e));
        break;
      case 'event': {
        // Queued behind any resume in progress on the channel, which writes it unless the replay did.
        // Channel work never rejects (a failed write breaks the stream and is logged by the channel).
        const channel = envelope.streamId === STANDALONE_STREAM ? http.standalone : http.stream(envelope.streamId);
        void channel?.deliverRemote(envelope.eventId, envelope.message, envelope.final === true).then(() => {
          if (channel.state === 'done') http.forgetStream(envelope.streamId);
        });
        break;
      }
      case 'state':
        http.session.applyRemoteChange(envelope.change);
        break;
      case 'task':
      case 'change':
        break; // carried on a task's channel and on the deployment's change channel, never on a session's
      case 'terminate':
        this.forget(http.id!)
          .then(() => this.onTerminated(http))
          .catch((e) => this.logError('Could not end a session terminated by another instance', e));
        break;
    }
  }
}

function stateOf(session: Connection, owner: string | undefined): SharedSessionState {
  const { peer, subscriptions } = session.snapshot();
  const state: SharedSessionState = { protocolVersion: peer.protocolVersion, clientCapabilities: peer.clientCapabilities, subscriptions };
  if (peer.logLevel) state.logLevel = peer.logLevel;
  if (peer.clientInfo) state.clientInfo = peer.clientInfo;
  if (owner !== undefined) state.owner = owner;
  return state;
}

function toPatch(session: Connection): Partial<SharedSessionState> {
  const { peer, subscriptions } = session.snapshot();
  const patch: Partial<SharedSessionState> = { subscriptions };
  if (peer.logLevel) patch.logLevel = peer.logLevel;
  return patch;
}
