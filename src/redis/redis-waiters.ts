import { type RedisClient, whenReady } from './redis-connection';

/**
 * Waits for pub/sub messages on channels, sharing one subscriber connection and one subscription
 * per channel however many callers wait on it.
 */
export class RedisWaiters {
  private readonly subscriber: RedisClient;
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(redis: RedisClient, onError: (error: Error) => void) {
    this.subscriber = redis.duplicate();
    this.subscriber.on('error', onError);
    this.subscriber.on('message', (channel: string) => {
      for (const wake of [...(this.waiting.get(channel) ?? [])]) wake();
    });
  }

  /**
   * Subscribes to `channel`, then asks `check` whether to wait at all (0 = no) and for how long at
   * most (ms); resolves on the next message, on abort, or when that time is up.
   */
  async wait(channel: string, signal: AbortSignal | undefined, check: () => Promise<number>): Promise<void> {
    if (signal?.aborted) return;
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    let set = this.waiting.get(channel);
    if (!set) this.waiting.set(channel, (set = new Set()));
    set.add(wake);
    try {
      // Subscribe before checking, so a change between the check and the wait is not missed.
      if (set.size === 1) {
        await whenReady(this.subscriber);
        await this.subscriber.subscribe(channel);
      }
      const maxMs = await check();
      if (maxMs <= 0) return;
      const timer = setTimeout(wake, maxMs);
      timer.unref();
      signal?.addEventListener('abort', wake, { once: true });
      await woken;
      clearTimeout(timer);
      signal?.removeEventListener('abort', wake);
    } finally {
      set.delete(wake);
      if (set.size === 0) {
        this.waiting.delete(channel);
        // Silent on purpose: it fails only when the connection is gone (the 'error' listener reports
        // that), and a subscription left behind only delivers messages nobody waits for.
        await this.subscriber.unsubscribe(channel).catch(() => undefined);
      }
    }
  }

  async close(): Promise<void> {
    for (const set of this.waiting.values()) for (const wake of set) wake();
    this.subscriber.disconnect();
  }
}
