import type { TaskStatus } from './task.types';

/** A status change the task lifecycle does not allow (a terminal task never changes). */
export class InvalidTaskTransitionError extends Error {
  constructor(
    readonly taskId: string,
    readonly from: TaskStatus,
    readonly to: TaskStatus,
  ) {
    super(`Task ${taskId} cannot move from ${from} to ${to}`);
    this.name = 'InvalidTaskTransitionError';
  }
}

/** A `tasks/list` cursor the store did not issue. */
export class InvalidTaskCursorError extends Error {
  constructor(cursor: string) {
    super(`Invalid task cursor: ${cursor}`);
    this.name = 'InvalidTaskCursorError';
  }
}

/** The store is full (too many live tasks overall). */
export class TaskStoreFullError extends Error {
  constructor(limit: number) {
    super(`The task store holds its maximum of ${limit} tasks`);
    this.name = 'TaskStoreFullError';
  }
}
