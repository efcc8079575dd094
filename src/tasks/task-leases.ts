import { ErrorCode } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import { delay } from './task-modes';
import { StorageUnavailableError } from './task-store.errors';
import type { TaskStore } from './task-store';

/**
 * With a distributed store: renews the leases of the tasks running here, and fails the tasks whose
 * instance stopped renewing. Returns the timers (unref'd) to clear at shutdown.
 */
export function keepLeases(
  store: TaskStore,
  leaseMs: number,
  running: () => string[],
  logError: (message: string, error?: unknown) => void,
): NodeJS.Timeout[] {
  if (!store.renewLeases || !store.reapAbandoned) return [];
  const renew = () => void store.renewLeases!(running(), leaseMs).catch((e) => logError('Could not renew task leases', e));
  // Renewing its own leases first keeps an instance from failing its own tasks after an outage, and
  // one that cannot renew them cannot judge the others' either.
  const reap = () =>
    void store.renewLeases!(running(), leaseMs)
      .then(() => store.reapAbandoned!('The server running this task stopped responding', 2 * leaseMs))
      .catch((e) => logError('Could not reap abandoned tasks', e));
  const timers = [setInterval(renew, Math.max(50, Math.floor(leaseMs / 3))), setInterval(reap, Math.max(100, Math.floor(leaseMs / 2)))];
  for (const t of timers) t.unref();
  return timers;
}

/** How long the cancellation watch waits before reading again a store that was unavailable. */
const WATCH_RETRY_MS = 250;

/**
 * With a shared store, a task may be cancelled through another instance: stop the handler here then.
 * An unavailable store pauses the watch, never ends it: a cancellation made during or after an outage
 * still reaches the handler.
 */
export async function watchForCancellation(
  store: TaskStore,
  taskId: string,
  owner: string,
  controller: AbortController,
  stop: AbortSignal,
  logError: (message: string, error?: unknown) => void,
): Promise<void> {
  let version: number | undefined;
  while (!stop.aborted) {
    try {
      if (version !== undefined) await store.waitForChange(taskId, owner, version, stop);
      if (stop.aborted) return;
      const record = await store.get(taskId, owner);
      if (!record) return;
      if (record.task.status === 'cancelled') {
        controller.abort(new McpError(ErrorCode.InvalidRequest, 'The task was cancelled'));
        return;
      }
      if (record.task.status === 'completed' || record.task.status === 'failed') return;
      version = record.version;
    } catch (error) {
      if (!(error instanceof StorageUnavailableError)) {
        logError(`Stopped watching task ${taskId} for cancellation`, error);
        return;
      }
      await delay(WATCH_RETRY_MS);
    }
  }
}
