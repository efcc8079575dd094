import { randomBytes } from 'node:crypto';
import type { ScaleOut, ScaleOutEnvironment, ScaleOutFactory } from '../kernel/scale-out';
import { traced } from '../observability/traced';
import type { ChangeBus } from '../protocol/per-request/subscriptions';
import type { TaskBus } from '../tasks/task-bus';
import type { HttpOptions } from '../transports/http/http-options';
import { RedisDpopStore } from './redis.dpop-store';
import { RedisEventStore } from './redis.event-store';
import { RedisSessionBackplane } from './redis.session-backplane';
import { RedisTaskStore } from './redis.task-store';
import { RedisPolicyStore } from './redis.policy-store';
import type { RedisConnection } from './redis-connection';

/** Where the instances of a deployment share their state. */
export interface RedisScaleOutOptions {
  /**
   * A URL (mcpkit opens and closes the connections) or an ioredis client the caller owns: a `Redis`
   * (one node, or Sentinel) or a `Cluster`.
   */
  redis: RedisConnection;
  /**
   * Prefix of every key and channel, so that several deployments can share one Redis. Without braces: on a
   * Cluster, a `{tag}` in the prefix would put every key in one slot.
   */
  keyPrefix?: string;
  /**
   * How often a task waiter (a blocking `tasks/result`, the watch for a cancellation made through
   * another instance) reads the task again although no pub/sub message woke it, in ms (default 5000).
   */
  recheckMs?: number;
}

/**
 * The `scaleOut` option on Redis: tasks go to RedisTaskStore (unless `taskStore` is given), SSE
 * events to RedisEventStore, sessions to RedisSessionBackplane and the call policies' state to
 * RedisPolicyStore (unless `policies.store` is given), and the DPoP proofs seen to RedisDpopStore, so
 * that any instance can serve any request:
 * `McpApplication.create(AppModule, { scaleOut: redisScaleOut({ redis: url }) })`.
 */
export function redisScaleOut(options: RedisScaleOutOptions): ScaleOutFactory {
  return (env) => new RedisScaleOut(options, env);
}

const CHANNEL_OPERATIONS = new Set(['publish', 'subscribe', 'sharedSecret']);

/** The Redis-backed pieces, created on first use. */
class RedisScaleOut implements ScaleOut {
  private tasks?: RedisTaskStore;
  private events?: RedisEventStore;
  private sessions?: RedisSessionBackplane;
  private policies?: RedisPolicyStore;
  private dpop?: RedisDpopStore;

  private readonly onError: (error: Error) => void;

  constructor(
    private readonly config: RedisScaleOutOptions,
    private readonly env: ScaleOutEnvironment,
  ) {
    this.onError = (error) => env.onError(error);
  }

  taskStore(): RedisTaskStore {
    this.tasks ??= new RedisTaskStore(this.config.redis, {
      keyPrefix: this.config.keyPrefix,
      recheckMs: this.config.recheckMs,
      onError: this.onError,
    });
    return this.tasks;
  }

  /** The call policies' store: limits, idempotency records, cached results and slots shared by every instance. */
  policyStore(): RedisPolicyStore {
    this.policies ??= new RedisPolicyStore(this.config.redis, {
      keyPrefix: this.config.keyPrefix,
      recheckMs: this.config.recheckMs,
      onError: this.onError,
    });
    return this.policies;
  }

  /** Task channels over the session backplane's pub/sub. */
  taskBus(): TaskBus {
    const backplane = this.channels();
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

  /** One channel per deployment over the backplane's pub/sub; an instance ignores what it published. */
  changeBus(): ChangeBus {
    const backplane = this.channels();
    const instanceId = randomBytes(8).toString('hex');
    const channel = 'changes';
    return {
      publish: (event) => backplane.publish(channel, { kind: 'change', event, from: instanceId }),
      subscribe: (listener) =>
        backplane.subscribe(channel, (envelope) => {
          if (envelope.kind === 'change' && envelope.from !== instanceId) listener(envelope.event);
        }),
    };
  }

  requestStateKey(): Promise<Buffer> {
    return this.channels().sharedSecret('request-state-key');
  }

  httpDefaults(): Pick<HttpOptions, 'eventStore' | 'sessionBackplane' | 'dpopStore'> {
    this.events ??= new RedisEventStore(this.config.redis, { keyPrefix: this.config.keyPrefix, onError: this.onError });
    this.dpop ??= new RedisDpopStore(this.config.redis, { keyPrefix: this.config.keyPrefix, onError: this.onError });
    return { eventStore: this.events, sessionBackplane: this.backplane(), dpopStore: this.dpop };
  }

  /** The backplane as the channels use it: a span per publish, subscribe and shared-secret read when telemetry records. */
  private channels(): RedisSessionBackplane {
    return traced(this.backplane(), this.env.telemetry, 'session_backplane', 'mcpkit.session_backplane.operation', CHANNEL_OPERATIONS);
  }

  private backplane(): RedisSessionBackplane {
    this.sessions ??= new RedisSessionBackplane(this.config.redis, { keyPrefix: this.config.keyPrefix, onError: this.onError });
    return this.sessions;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.events?.close(), this.sessions?.close(), this.dpop?.close()]);
  }
}
