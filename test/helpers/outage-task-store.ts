import { InMemoryTaskStore, StorageUnavailableError, TaskOutcome, TaskRecord } from '../../src';
import type { TerminalStatus } from '../../src/tasks/task.types';

/**
 * The in-memory task store with an outage a test switches on and off: while `down`, recording a task's
 * end fails as a store that cannot be reached does (StorageUnavailableError), and each attempt is counted.
 */
export class OutageTaskStore extends InMemoryTaskStore {
  down = false;
  failedFinishes = 0;

  override async finish(taskId: string, owner: string, status: TerminalStatus, outcome: TaskOutcome, statusMessage?: string): Promise<TaskRecord | undefined> {
    if (this.down && status !== 'cancelled') {
      this.failedFinishes++;
      throw new StorageUnavailableError('The task store', new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    }
    return super.finish(taskId, owner, status, outcome, statusMessage);
  }
}
