import { RedisEventStore } from '../redis/redis.event-store';
import { RedisSessionBackplane } from '../redis/redis.session-backplane';
import { RedisTaskStore } from '../redis/redis.task-store';
import type { RedisConnection } from '../redis/redis-connection';
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

  httpDefaults(): Pick<HttpOptions, 'eventStore' | 'sessionBackplane'> {
    this.events ??= new RedisEventStore(this.config.redis, { keyPrefix: this.config.keyPrefix, onError: this.onError });
    this.sessions ??= new RedisSessionBackplane(this.config.redis, { keyPrefix: this.config.keyPrefix, onError: this.onError });
    return { eventStore: this.events, sessionBackplane: this.sessions };
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.events?.close(), this.sessions?.close()]);
  }
}
