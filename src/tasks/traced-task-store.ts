import type { RequestTelemetry } from '../protocol/telemetry/telemetry-options';
import { traced } from '../protocol/telemetry/traced';
import type { TaskStore } from './task-store';

/** The store's calls that get a span; waitForChange and close are left out: they wait, they do no work. */
const TRACED = new Set(['create', 'get', 'wasExpired', 'setStatus', 'finish', 'outcome', 'list', 'countActive', 'appendSegments', 'segments', 'renewLeases', 'releaseLease', 'reapAbandoned']);

/** The task store with a child span per call (`task_store {operation}`) when telemetry is on; the store itself when off. */
export function tracedTaskStore(store: TaskStore, telemetry: RequestTelemetry | undefined): TaskStore {
  if (!telemetry) return store;
  const spans = traced(store, telemetry, 'task_store', 'mcpkit.task_store.operation', TRACED);
  // Tasks by status: each task counted once per status it reaches (`mcpkit.server.task.status`).
  const reached = (status: string | undefined) => status && telemetry.count('mcpkit.server.task.status', 'Tasks that reached a status, by status', { 'mcpkit.task.status': status });
  return Object.assign(Object.create(spans) as TaskStore, {
    create: async (...args: Parameters<TaskStore['create']>) => {
      const record = await spans.create(...args);
      reached(record.task.status);
      return record;
    },
    setStatus: async (...args: Parameters<TaskStore['setStatus']>) => {
      const record = await spans.setStatus(...args);
      if (record) reached(args[2]);
      return record;
    },
    finish: async (...args: Parameters<TaskStore['finish']>) => {
      const record = await spans.finish(...args);
      if (record) reached(args[2]);
      return record;
    },
  });
}
