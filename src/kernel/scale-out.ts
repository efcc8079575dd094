import type { ChangeBus } from '../protocol/per-request/subscriptions';
import type { RequestTelemetry } from '../observability/telemetry-options';
import type { TaskBus } from '../tasks/task-bus';
import type { TaskStore } from '../tasks/task-store';
import type { PolicyStore } from '../contracts/policy-store';
import type { HttpOptions } from '../transports/http/http-options';

/**
 * The shared state that lets several instances serve one deployment: tasks, task channels, SSE
 * events and sessions. `redisScaleOut(...)` from `mcpkit/redis` builds one; the core never loads
 * a Redis client itself.
 */
export interface ScaleOut {
  /** The task store used when the module names none. */
  taskStore(): TaskStore;
  /** Channels between the instances serving a task. */
  taskBus(): TaskBus;
  /** The store of the call policies (rate limits, idempotency, the cache, concurrency), unless the application sets one. */
  policyStore?(): PolicyStore;
  /** Carries resource updates and list changes to the listen streams of the other instances (optional). */
  changeBus?(): ChangeBus;
  /** A requestState signing key every instance shares (generated once), unless the application sets one. */
  requestStateKey?(): Promise<Buffer>;
  /** Defaults of every HTTP transport of the application (explicit HTTP options win). */
  httpDefaults(): Pick<HttpOptions, 'eventStore' | 'sessionBackplane' | 'dpopStore'>;
  close(): Promise<void>;
}

/** What an application hands its scale-out when it builds it. */
export interface ScaleOutEnvironment {
  /** Connection errors go here (the application logs them, throttled). */
  onError(error: Error): void;
  /** The application's telemetry: calls the scale-out makes on its own (task and change channels) get spans when it records. */
  telemetry?: RequestTelemetry;
}

/** The `scaleOut` option: builds the application's ScaleOut once, at `McpApplication.create`. */
export type ScaleOutFactory = (env: ScaleOutEnvironment) => ScaleOut;

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
