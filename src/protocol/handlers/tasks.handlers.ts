import type { TaskManager } from '../../tasks/task-manager';
import { readCursor } from '../pagination';
import type { MethodHandler } from '../request-scope';
import type { HandlerEnv } from './handler-env';

/** tasks/get, tasks/result, tasks/list and tasks/cancel. */
export function tasksHandlers(env: HandlerEnv, tasks: TaskManager): Record<string, MethodHandler> {
  return {
    'tasks/get': (params, scope) => tasks.get(params.taskId as string, scope),
    'tasks/result': (params, scope) => tasks.result(params.taskId as string, params.lastSeqNr, scope),
    'tasks/list': (params, scope) => tasks.list(readCursor(params), env.pageSize, scope),
    'tasks/cancel': (params, scope) => tasks.cancel(params.taskId as string, scope),
  };
}
