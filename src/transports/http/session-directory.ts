import type { ReadinessProbe } from './readiness';
import { randomBytes } from 'node:crypto';
import type { Connection, ConnectionOptions, MessageSink } from '../../protocol/connection';
import type { ResolvedHttpOptions } from './http-options';
import type { EraSupport } from '../../mcp/eras';
import { HttpSession } from './http-session';
import { SessionCluster } from './session-cluster';
import type { ChannelContext } from './stream-channel';
import type { StatelessServer } from './stateless-exchange';

/** What the transport needs from the application. */
export interface SessionFactory {
  createSession(sink: MessageSink, options?: ConnectionOptions): Connection;
  /** Serves what arrives with no session (2026-07-28 requests; every request when `sessions` is off). */
  readonly stateless: StatelessServer;
  logError(message: string, error?: unknown): void;
  /** The per-request era's dispatch, when the application serves it. */
  readonly perRequest?: { readonly support: EraSupport; knows(method: string): boolean };
  /** Stores of the application the readiness endpoint asks (the transport adds its own). */
  readonly readiness?: { readonly taskStore?: ReadinessProbe };
}

/**
 * The sessions an HTTP transport serves: created here, or restored from the cluster when they were
 * created by another instance; swept when idle; terminated here or everywhere.
 */
export class SessionDirectory {
  private readonly sessions = new Map<string, HttpSession>();
  readonly cluster?: SessionCluster;

  constructor(
    private readonly factory: SessionFactory,
    private readonly options: ResolvedHttpOptions,
    private readonly channelContext: (sessionId: string) => ChannelContext,
  ) {
    if (options.sessionBackplane) {
      this.cluster = new SessionCluster(
        options.sessionBackplane,
        options.sessionIdleTimeoutMs,
        (http) => this.drop(http, true),
        (m, e) => factory.logError(m, e),
      );
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  /** A new session (call `register` before answering its initialize). */
  create(owner: string | undefined): HttpSession {
    const id = randomBytes(16).toString('hex');
    const http = this.build(id, owner);
    this.sessions.set(id, http);
    return http;
  }

  /** Shares a new session with the other instances, when there are any. */
  async register(http: HttpSession): Promise<void> {
    await this.cluster?.register(http);
  }

  /** The session with this id as its owner sees it; undefined when unknown, ended or another principal's. */
  async find(id: string, owner: string | undefined): Promise<HttpSession | undefined> {
    let http = this.sessions.get(id);
    if (!http && this.cluster) {
      http = await this.cluster.restore(id, (state) => this.build(id, state.owner));
      if (http) this.sessions.set(id, http);
    }
    // A session created by another principal is reported as missing, not as forbidden.
    if (!http || http.session.closed || http.owner !== owner) return undefined;
    this.cluster?.touch(http);
    return http;
  }

  /** Ends a session: everywhere (DELETE), or only here. */
  async terminate(http: HttpSession, everywhere: boolean): Promise<void> {
    if (everywhere && this.cluster) await this.cluster.terminate(http);
    await this.drop(http, everywhere);
  }

  /** Forgets a session that never got going (it could not be shared), leaving its streams alone. */
  discard(http: HttpSession): void {
    if (this.sessions.get(http.id!) === http) this.sessions.delete(http.id!);
    http.session.close();
  }

  /** Closes sessions idle past the timeout (here only: a shared session expires by itself in the store). */
  sweep(): void {
    const deadline = Date.now() - this.options.sessionIdleTimeoutMs;
    for (const http of this.sessions.values()) {
      if (http.lastActivity < deadline && !http.busy && !http.standaloneConnected) {
        this.drop(http, !this.cluster).catch((e) => this.factory.logError('Could not close an idle session', e));
      }
    }
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.sessions.values()].map((http) => this.drop(http, !this.cluster)));
    await this.cluster?.close();
  }

  private build(id: string, owner: string | undefined): HttpSession {
    const http = new HttpSession(id, owner, this.channelContext(id));
    http.session = this.factory.createSession((m, related, final) => http.route(m, related, final), {
      id,
      reachable: () => http.standaloneConnected,
    });
    return http;
  }

  /** Forgets a session here; `clearEvents` also drops its stored events (the session is over for good). */
  private async drop(http: HttpSession, clearEvents: boolean): Promise<void> {
    if (this.sessions.get(http.id!) === http) this.sessions.delete(http.id!);
    await this.cluster?.forget(http.id!);
    http.session.close();
    await http.endStreams();
    if (clearEvents)
      await this.options.eventStore
        ?.clearSession(http.id!)
        .catch((e) => this.factory.logError('Could not clear the events of an ended session', e));
  }
}
