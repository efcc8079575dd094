import { StorageUnavailableError } from '../tasks/task-store.errors';
import { isConnectionError, NotConnectedError, pubsub, type RedisClient, subscriberOf, watchOf, whenReady } from './redis-connection';

/** How often a waiter re-reads what it waits on by default (a pub/sub message can be lost), in ms. */
export const RECHECK_MS = 5_000;

/** Why a waiter woke: a message on its channel, a reason to read the state again, or Redis known to be down. */
type Why = 'message' | 'recheck' | 'down';
type Wake = (why: Why) => void;

interface Channel {
  readonly wakes: Set<Wake>;
  /** Settles once the subscriber listens on the channel (a failure is the first waiter's to report). */
  readonly subscribed: Promise<unknown>;
}

/**
 * Waits for pub/sub messages on channels, sharing one subscriber connection and one subscription
 * per channel however many callers wait on it. Pub/sub delivers at most once: a message published
 * while the subscriber reconnects is lost. So a waiter also reads the state again once its
 * subscription is back (after each reconnection, also one that came before it first listened) and
 * every `recheckMs`: a lost message costs at most that long. While Redis is down a waiter waits on,
 * unless `failOnOutage`: then it rejects (NotConnectedError) as soon as Redis is known to be down, for
 * a caller with a policy for outages.
 */
export class RedisWaiters {
  private readonly subscriber: RedisClient;
  private readonly channels = new Map<string, Channel>();

  constructor(
    private readonly redis: RedisClient,
    onError: (error: Error) => void,
    private readonly recheckMs = RECHECK_MS,
    private readonly failOnOutage = false,
  ) {
    // Re-subscribed here on each 'ready' (see `resubscribed` and subscriberOf).
    this.subscriber = subscriberOf(redis);
    this.subscriber.on('error', onError);
    this.subscriber.on('message', (channel: string) => {
      for (const wake of [...(this.channels.get(channel)?.wakes ?? [])]) wake('message');
    });
    this.subscriber.on('ready', () => void this.resubscribed());
  }

  /**
   * Subscribes to `channel`, then asks `check` whether to wait at all (0 = no) and for how long at
   * most (ms); resolves on the next message, on abort, when that time is up, or when `check`, asked
   * again after a reconnection or every `recheckMs`, says not to wait any more.
   */
  async wait(channel: string, signal: AbortSignal | undefined, check: () => Promise<number>): Promise<void> {
    if (signal?.aborted) return;
    let entry = this.channels.get(channel);
    if (!entry) {
      const subscribed = whenReady(this.subscriber)
        .then(() => pubsub(this.subscriber, 'subscribe', [channel]))
        .catch((error: unknown) => {
          // The connection dropped before it listened: as after a drop once listening, the channel stays,
          // `resubscribed` listens on it at the next 'ready', and the re-checks cover the gap.
          if (!this.failOnOutage && isConnectionError(error)) return;
          // Each waiter awaits it and sees the failure; the next waiter subscribes afresh.
          if (this.channels.get(channel) === created) this.channels.delete(channel);
          throw error;
        });
      const created: Channel = (entry = { wakes: new Set<Wake>(), subscribed });
      this.channels.set(channel, created);
    }
    const { wakes } = entry;
    let wake!: Wake;
    let woken = new Promise<Why>((resolve) => (wake = resolve));
    const waker: Wake = (why) => wake(why);
    wakes.add(waker);
    const onAbort = () => wake('message');
    signal?.addEventListener('abort', onAbort, { once: true });
    const stopWatching = this.failOnOutage ? watchOf(this.redis).whenDown(() => wake('down')) : undefined;
    try {
      // Subscribe before checking, so a change between the check and the wait is not missed.
      await entry.subscribed;
      let maxMs = await check();
      let until = Date.now() + maxMs;
      while (maxMs > 0 && !signal?.aborted) {
        const timer = setTimeout(() => wake('recheck'), Math.min(this.recheckMs, Math.max(0, until - Date.now())));
        timer.unref();
        const why = await woken;
        clearTimeout(timer);
        if (why === 'down') throw new NotConnectedError('Redis went down during the wait');
        if (why === 'message' || signal?.aborted || Date.now() >= until) return;
        woken = new Promise((resolve) => (wake = resolve));
        maxMs = await this.recheck(check, until - Date.now());
        until = Date.now() + maxMs;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      stopWatching?.();
      wakes.delete(waker);
      if (wakes.size === 0 && this.channels.get(channel) === entry) {
        this.channels.delete(channel);
        // Not awaited: on a client that queues commands while it reconnects, it would hold the waiter
        // until then. Silent on purpose: it fails only when the connection is gone (the 'error'
        // listener reports that), and a subscription left behind only delivers messages nobody waits for.
        void pubsub(this.subscriber, 'unsubscribe', [channel]).catch(() => undefined);
      }
    }
  }

  async close(): Promise<void> {
    for (const { wakes } of this.channels.values()) for (const wake of wakes) wake('message');
    this.subscriber.disconnect();
  }

  /**
   * A re-check while the store is away keeps the waiter waiting (the next one reads again) rather than
   * failing it, unless `failOnOutage`.
   */
  private async recheck(check: () => Promise<number>, leftMs: number): Promise<number> {
    try {
      return await check();
    } catch (error) {
      if (!this.failOnOutage && (error instanceof StorageUnavailableError || isConnectionError(error))) return leftMs;
      throw error;
    }
  }

  /**
   * The subscriber is (re)connected: listen on every channel again, then have every waiter read the
   * state again, since a message may have been published while the connection was down.
   */
  private async resubscribed(): Promise<void> {
    const names = [...this.channels.keys()];
    if (names.length === 0) return;
    try {
      await pubsub(this.subscriber, 'subscribe', names);
    } catch {
      // The connection dropped again: the next 'ready' does this once more, and the interval re-checks meanwhile.
      return;
    }
    for (const name of names) for (const wake of [...(this.channels.get(name)?.wakes ?? [])]) wake('recheck');
  }
}
