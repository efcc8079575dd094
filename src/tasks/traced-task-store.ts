import type { RequestTelemetry } from '../protocol/telemetry/telemetry-options';
import type { TaskStore } from './task-store';

/** The store's calls that get a span (every one that returns a promise). */
const TRACED = new Set(['create', 'get', 'wasExpired', 'setStatus', 'finish', 'outcome', 'list', 'countActive', 'appendSegments', 'segments', 'renewLeases', 'releaseLease', 'reapAbandoned']);
/** No request of its own: a store call is the child of the active context (an SDK's context manager). */
const ACTIVE = {};

/**
 * The task store with a child span per call (`task_store {operation}`), when telemetry is full;
 * the store itself when it is off. waitForChange and close are left out: they wait, they do no work.
 */
export function tracedTaskStore(store: TaskStore, telemetry: RequestTelemetry | undefined): TaskStore {
  if (!telemetry) return store;
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof key !== 'string' || typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (!TRACED.has(key)) return fn.bind(target);
      return (...args: unknown[]) => telemetry.child(ACTIVE, 0, `task_store ${key}`, { 'mcpkit.task_store.operation': key }, () => Promise.resolve(fn.apply(target, args)));
    },
  });
}
