import type { RequestTelemetry } from '../protocol/telemetry/telemetry-options';
import { traced } from '../protocol/telemetry/traced';
import type { TaskStore } from './task-store';

/** The store's calls that get a span; waitForChange and close are left out: they wait, they do no work. */
const TRACED = new Set(['create', 'get', 'wasExpired', 'setStatus', 'finish', 'outcome', 'list', 'countActive', 'appendSegments', 'segments', 'renewLeases', 'releaseLease', 'reapAbandoned']);

/** The task store with a child span per call (`task_store {operation}`) when telemetry is on; the store itself when off. */
export function tracedTaskStore(store: TaskStore, telemetry: RequestTelemetry | undefined): TaskStore {
  return traced(store, telemetry, 'task_store', 'mcpkit.task_store.operation', TRACED);
}
