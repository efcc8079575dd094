import { optionalObject } from '../protocol/handlers/handler-env';
import { readCursor } from '../protocol/pagination';
import type { CallStep } from '../protocol/pipeline/stages';
import type { ProtocolFeature } from '../protocol/protocol-feature';
import type { ToolDescriptor } from '../registry/descriptors';
import type { Registry } from '../registry/registry';
import { McpError } from '../mcp/mcp.error';
import { TASKS_EXTENSION } from '../mcp/eras';
import type { TaskManager } from './task-manager';
import type { SubscriptionHub } from '../protocol/per-request/subscriptions';

/**
 * Tasks (2025-11-25) and the task-result-streaming proposal as a protocol feature: the `tasks`
 * capability while some tool may run as a task, the tasks/* methods, and the task boundary of tools'
 * pipelines: a task-augmented call returns its task there, the rest of its pipeline runs in the task.
 */
export function tasksFeature(tasks: TaskManager, registry: Registry, pageSize: number, hub?: SubscriptionHub): ProtocolFeature {
  // A per-request task's status changes reach the subscriptions/listen streams of its owner that name it.
  if (hub) tasks.perRequest.notifier = (taskId, owner, params) => void hub.changed({ kind: 'task', taskId, owner, params });
  return {
    capability: 'tasks',
    extension: TASKS_EXTENSION,
    capabilityFor: (registry) =>
      registry.kinds().taskTools
        ? { list: {}, cancel: {}, requests: { tools: { call: {} } }, responses: { modes: ['task', 'immediate', 'streaming'] } }
        : undefined,
    eras: {
      // 2025-11-25: a tools/call with a `task` field runs as a task; tasks/* read and cancel it.
      handshake: {
        methods: {
          'tasks/get': (params, scope) => tasks.get(params.taskId as string, scope),
          'tasks/result': (params, scope) => tasks.result(params.taskId as string, params.lastSeqNr, scope),
          'tasks/list': (params, scope) => tasks.list(readCursor(params), pageSize, scope),
          'tasks/cancel': (params, scope) => tasks.cancel(params.taskId as string, scope),
        },
      },
      // 2026-07-28: the tasks extension, whose server decides which calls become tasks.
      'per-request': { methods: tasks.perRequest.handlers() },
    },
    stages: { task: (ref) => (ref.kind === 'tool' ? taskBoundary(tasks, ref as ToolDescriptor, registry) : undefined) },
  };
}

/**
 * The task boundary of a tool's pipeline. A tool that may run as a task: in the handshake era, a call
 * with a `task` field becomes one (and a call without one of a task-only tool is refused); in the
 * per-request era, the tasks extension decides. A tool that never does: while the server declares tasks
 * (some other tool supports them), a handshake-era call asking for a task is refused; otherwise the
 * `task` field is not the server's business and the tool has no boundary at all.
 */
function taskBoundary(tasks: TaskManager, tool: ToolDescriptor, registry: Registry): CallStep | undefined {
  if (tool.taskSupport === 'forbidden') {
    if (!registry.kinds().taskTools) return undefined;
    return (call, next) =>
      !call.scope.peer.perRequest && optionalObject(call.scope.params, 'task')
        ? Promise.reject(McpError.methodNotFound(`tools/call as a task (tool "${tool.name}" does not support tasks)`))
        : next();
  }
  return (call, next) => {
    if (call.scope.peer.perRequest) return tasks.perRequest.callTool(tool, call, next);
    const task = optionalObject(call.scope.params, 'task');
    if (!task && tool.taskSupport === 'required')
      return Promise.reject(McpError.methodNotFound(`tools/call without a task (tool "${tool.name}" must run as a task)`));
    return task ? tasks.callTool(tool, task, call, next) : next();
  };
}
