import { randomBytes } from 'node:crypto';
import { RedisEventStore } from '../redis/redis.event-store';
import { RedisSessionBackplane } from '../redis/redis.session-backplane';
import { RedisTaskStore } from '../redis/redis.task-store';
import type { RedisConnection } from '../redis/redis-connection';
import type { TaskBus } from '../tasks/task-bus';
import type { HttpOptions } from '../transports/http/http-options';

/** The Redis-backed pieces that let several instances serve one deployment, created on first use. */
export class ScaleOut {
  private tasks?: RedisTaskStore;
  private events?: RedisEventStore;
  private sessions?: RedisSessionBackplane;

  constructor(
    private readonly config: { redis: RedisConnection; keyPrefix?: string },
    private readonly onError: (error: Error) => void,
  ) {}

  taskStore(): RedisTaskStore {
    this.tasks ??= new RedisTaskStore(this.config.redis, { keyPrefix: this.config.keyPrefix, onError: this.onError });
    return this.tasks;
  }

  /** Task channels over the session backplane's pub/sub. */
  taskBus(): TaskBus {
    const backplane = this.backplane();
    const instanceId = randomBytes(8).toString('hex');
    const channel = (taskId: string) => `task:${taskId}`;
    return {
      instanceId,
      publish: (taskId, message) => backplane.publish(channel(taskId), { kind: 'task', message, from: instanceId }),
      subscribe: (taskId, listener) =>
        backplane.subscribe(channel(taskId), (envelope) => {
          if (envelope.kind === 'task') listener(envelope.message);
        }),
    };
  }

  httpDefaults(): Pick<HttpOptions, 'eventStore' | 'sessionBackplane'> {
    this.events ??= new RedisEventStore(this.config.redis, { keyPrefix: this.config.keyPrefix, onError: this.onError });
    return { eventStore: this.events, sessionBackplane: this.backplane() };
  }

  private backplane(): RedisSessionBackplane {
    this.sessions ??= new RedisSessionBackplane(this.config.redis, { keyPrefix: this.config.keyPrefix, onError: this.onError });
    return this.sessions;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.events?.close(), this.sessions?.close()]);
  }
}

/** Calls `log` at most once per `ms` (a Redis outage reports every reconnection attempt). */
export function throttled(log: (error: Error) => void, ms: number): (error: Error) => void {
  let last = 0;
  return (error) => {
    const now = Date.now();
    if (now - last < ms) return;
    last = now;
    log(error);
  };
}
