import { optionalObject } from '../protocol/handlers/handler-env';
import { readCursor } from '../protocol/pagination';
import type { ProtocolFeature } from '../protocol/protocol-feature';
import type { ToolInvoker } from '../protocol/tool-invoker';
import { McpError } from '../mcp/mcp.error';
import { TASKS_EXTENSION } from '../mcp/eras';
import type { TaskManager } from './task-manager';
import type { SubscriptionHub } from '../protocol/per-request/subscriptions';

/**
 * Tasks (2025-11-25) and the task-result-streaming proposal as a protocol feature: the `tasks`
 * capability while some tool may run as a task, the tasks/* methods, and task-augmented tools/call.
 */
export function tasksFeature(tasks: TaskManager, tools: ToolInvoker, pageSize: number, hub?: SubscriptionHub): ProtocolFeature {
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
        interceptToolCall: ({ tool, args, params, scope }, enabled) => {
          // Task augmentation is honoured only while the server declares tasks (else the field is ignored).
          if (!enabled) return undefined;
          const task = optionalObject(params, 'task');
          if (task && tool.taskSupport === 'forbidden')
            throw McpError.methodNotFound(`tools/call as a task (tool "${tool.name}" does not support tasks)`);
          if (!task && tool.taskSupport === 'required')
            throw McpError.methodNotFound(`tools/call without a task (tool "${tool.name}" must run as a task)`);
          return task ? tasks.callTool(tools, tool, args, task, scope) : undefined;
        },
      },
      // 2026-07-28: the tasks extension, whose server decides which calls become tasks.
      'per-request': {
        methods: tasks.perRequest.handlers(),
        // A tool that never runs as a task is not the task machinery's business (PerRequestTasks.intercept says the same).
        interceptToolCall: (call) =>
          call.tool.taskSupport === 'required' || call.tool.taskSupport === 'optional'
            ? tasks.perRequest.intercept(tools, call)
            : undefined,
      },
    },
  };
}
