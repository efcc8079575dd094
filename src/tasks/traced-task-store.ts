import type { RequestTelemetry } from '../observability/telemetry-options';
import { traced } from '../observability/traced';
import type { TaskStore } from './task-store';
import type { TaskRecord, TaskStatus } from './task.types';

/** The store's calls that get a span; waitForChange and close are left out: they wait, they do no work. */
const TRACED = new Set([
  'create',
  'get',
  'wasExpired',
  'setStatus',
  'finish',
  'outcome',
  'list',
  'countActive',
  'appendSegments',
  'segments',
  'renewLeases',
  'releaseLease',
  'reapAbandoned',
]);
const STATUSES: readonly TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

/**
 * Tasks created on this instance by their current status, until their ttl runs out (then the store
 * may delete them; a task with no ttl is counted until the process ends). A status change is seen
 * when this instance makes it, or reads the task (get, list, a lease reaper).
 */
class TasksByStatus {
  private readonly tasks = new Map<string, { status: TaskStatus; expires: number }>();
  private sweepAt = 1024;

  created(record: TaskRecord): void {
    const { task } = record;
    this.tasks.set(task.taskId, { status: task.status, expires: task.ttl === null ? Infinity : Date.now() + task.ttl });
    // Without a metric reader nobody collects: expired entries go once the map has doubled.
    if (this.tasks.size >= this.sweepAt) {
      this.sweep();
      this.sweepAt = Math.max(1024, 2 * this.tasks.size);
    }
  }

  seen(record: TaskRecord | undefined): void {
    const known = record && this.tasks.get(record.task.taskId);
    if (known) known.status = record.task.status;
  }

  points(): { value: number; attributes: Record<string, string> }[] {
    this.sweep();
    const counts = new Map<TaskStatus, number>(STATUSES.map((s) => [s, 0]));
    for (const { status } of this.tasks.values()) counts.set(status, counts.get(status)! + 1);
    return STATUSES.map((status) => ({ value: counts.get(status)!, attributes: { 'mcpkit.task.status': status } }));
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, { expires }] of this.tasks) if (expires <= now) this.tasks.delete(id);
  }
}

/**
 * The task store with a child span per call (`task_store {operation}`) and the gauge
 * `mcpkit.server.tasks` (tasks by status) when telemetry is full; the store itself otherwise.
 */
export function tracedTaskStore(store: TaskStore, telemetry: RequestTelemetry | undefined): TaskStore {
  if (!telemetry?.recording) return store;
  const spans = traced(store, telemetry, 'task_store', 'mcpkit.task_store.operation', TRACED);
  const byStatus = new TasksByStatus();
  telemetry.gauge('mcpkit.server.tasks', '{task}', 'Tasks created on this instance and not expired, by current status', () =>
    byStatus.points(),
  );
  const seen = <T extends TaskRecord | undefined>(record: T): T => (byStatus.seen(record), record);
  return Object.assign(
    Object.create(spans) as TaskStore,
    {
      create: async (...args: Parameters<TaskStore['create']>) => {
        const record = await spans.create(...args);
        byStatus.created(record);
        return record;
      },
      get: async (...args: Parameters<TaskStore['get']>) => seen(await spans.get(...args)),
      setStatus: async (...args: Parameters<TaskStore['setStatus']>) => seen(await spans.setStatus(...args)),
      finish: async (...args: Parameters<TaskStore['finish']>) => seen(await spans.finish(...args)),
      list: async (...args: Parameters<TaskStore['list']>) => {
        const page = await spans.list(...args);
        page.tasks.forEach(seen);
        return page;
      },
    } satisfies Partial<TaskStore>,
    store.reapAbandoned && {
      reapAbandoned: async (...args: Parameters<NonNullable<TaskStore['reapAbandoned']>>) => {
        const reaped = await spans.reapAbandoned!(...args);
        reaped.forEach(seen);
        return reaped;
      },
    },
  );
}
