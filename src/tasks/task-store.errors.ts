import { ErrorCode } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import { echo } from '../protocol/wire';
import type { TaskStatus } from './task.types';

/**
 * What a task store throws. Each class knows the JSON-RPC error a client gets for it (`toMcpError`),
 * so that a request failing on the store is answered with what went wrong instead of a generic
 * -32603 logged as an unhandled fault.
 */
export abstract class TaskStoreError extends Error {
  toMcpError(): McpError {
    return toMcpError(this) ?? new McpError(ErrorCode.InternalError, 'Internal error');
  }
}

/** A status change the task lifecycle does not allow (a terminal task never changes). */
export class InvalidTaskTransitionError extends TaskStoreError {
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
export class InvalidTaskCursorError extends TaskStoreError {
  constructor(readonly cursor: string) {
    super(`Invalid task cursor: ${String(echo(cursor))}`);
    this.name = 'InvalidTaskCursorError';
  }
}

/** The store is full (too many live tasks overall). */
export class TaskStoreFullError extends TaskStoreError {
  constructor(readonly limit: number) {
    super(`The task store holds its maximum of ${limit} tasks`);
    this.name = 'TaskStoreFullError';
  }
}

/**
 * A store (tasks, events, sessions) could not be reached. The client is told which store; the cause
 * (a host, a port, a driver's message) stays on the server.
 */
export class StorageUnavailableError extends McpError {
  constructor(
    readonly store: string,
    cause?: unknown,
  ) {
    super(ErrorCode.InternalError, `${store} is unavailable`);
    this.name = 'StorageUnavailableError';
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * The one mapping from store errors to JSON-RPC errors, by class: a client's mistake (a cursor or a
 * transition it may not ask for) is -32602; the server's condition (full, unreachable) is -32603 with
 * a message that says which. Undefined for any other error.
 */
export function toMcpError(error: unknown): McpError | undefined {
  if (error instanceof StorageUnavailableError) return error;
  if (error instanceof TaskStoreFullError)
    return new McpError(ErrorCode.InternalError, `Task store full: at most ${error.limit} tasks`, { limit: error.limit });
  if (error instanceof InvalidTaskCursorError) return McpError.invalidParams('Invalid cursor', { cursor: echo(error.cursor) });
  if (error instanceof InvalidTaskTransitionError) {
    return McpError.invalidParams(`Cannot change task: already in terminal status '${error.from}'`, { taskId: echo(error.taskId) });
  }
  return undefined;
}
