import { InMemoryTaskStore, StorageUnavailableError, type TaskOutcome, type TaskRecord } from '../../src/stores';
import type { TerminalStatus } from '../../src/tasks/task.types';

/**
 * The in-memory task store with an outage a test switches on and off: while `down`, recording a task's
 * end fails as a store that cannot be reached does (StorageUnavailableError), and each attempt is counted.
 */
export class OutageTaskStore extends InMemoryTaskStore {
  down = false;
  failedFinishes = 0;

  override async finish(
    taskId: string,
    owner: string,
    status: TerminalStatus,
    outcome: TaskOutcome,
    statusMessage?: string,
  ): Promise<TaskRecord | undefined> {
    if (this.down && status !== 'cancelled') {
      this.failedFinishes++;
      throw new StorageUnavailableError('The task store', new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    }
    return super.finish(taskId, owner, status, outcome, statusMessage);
  }
}

/**
 * A store with leases whose every call fails once it is closed, as a Redis store does: a task engine
 * that touches it after shutdown closed it logs errors.
 */
export class LeasedTaskStore extends InMemoryTaskStore {
  private closed = false;
  readonly released: string[] = [];

  async renewLeases(): Promise<void> {
    this.check();
  }

  async releaseLease(taskId: string): Promise<void> {
    this.check();
    this.released.push(taskId);
  }

  override async finish(
    taskId: string,
    owner: string,
    status: TerminalStatus,
    outcome: TaskOutcome,
    statusMessage?: string,
  ): Promise<TaskRecord | undefined> {
    this.check();
    return super.finish(taskId, owner, status, outcome, statusMessage);
  }

  override async close(): Promise<void> {
    this.closed = true;
    await super.close();
  }

  private check(): void {
    if (this.closed) throw new StorageUnavailableError('The task store', new Error('Connection is closed.'));
  }
}
