import { optionalObject } from '../protocol/handlers/handler-env';
import { readCursor } from '../protocol/pagination';
import type { ProtocolFeature } from '../protocol/protocol-feature';
import type { ToolInvoker } from '../protocol/tool-invoker';
import { McpError } from '../mcp/mcp.error';
import { TASKS_EXTENSION } from '../mcp/eras';
import type { LazyTaskManager } from './lazy-task-manager';
import type { MethodHandler } from '../protocol/request-scope';
import type { SubscriptionHub } from '../protocol/modern/subscriptions';

/** The methods of the 2026-07-28 tasks extension (ModernTasks.handlers), named here so that serving them loads nothing. */
const MODERN_METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel'] as const;

/**
 * Tasks (2025-11-25) and the task-result-streaming proposal as a protocol feature: the `tasks`
 * capability while some tool may run as a task, the tasks/* methods, and task-augmented tools/call.
 * The TaskManager is built by the first request that needs it (see LazyTaskManager).
 */
export function tasksFeature(lazy: LazyTaskManager, tools: ToolInvoker, pageSize: number, hub?: SubscriptionHub): ProtocolFeature {
  // A modern task's status changes reach the subscriptions/listen streams of its owner that name it.
  if (hub) lazy.modernNotifier = (taskId, owner, params) => void hub.changed({ kind: 'task', taskId, owner, params });
  const tasks = () => lazy.get();
  let modernHandlers: Record<string, MethodHandler> | undefined;
  const modernMethods = Object.fromEntries(
    MODERN_METHODS.map((method): [string, MethodHandler] => [
      method,
      (params, scope) => (modernHandlers ??= tasks().modern.handlers())[method](params, scope),
    ]),
  );
  return {
    capability: 'tasks',
    extension: TASKS_EXTENSION,
    capabilityFor: (registry) =>
      registry.kinds().taskTools
        ? { list: {}, cancel: {}, requests: { tools: { call: {} } }, responses: { modes: ['task', 'immediate', 'streaming'] } }
        : undefined,
    methods: {
      'tasks/get': (params, scope) => tasks().get(params.taskId as string, scope),
      'tasks/result': (params, scope) => tasks().result(params.taskId as string, params.lastSeqNr, scope),
      'tasks/list': (params, scope) => tasks().list(readCursor(params), pageSize, scope),
      'tasks/cancel': (params, scope) => tasks().cancel(params.taskId as string, scope),
    },
    modernMethods,
    interceptToolCall: ({ tool, args, params, scope }, enabled) => {
      // Task augmentation is honoured only while the server declares tasks (else the field is ignored).
      if (!enabled) return undefined;
      const task = optionalObject(params, 'task');
      if (task && tool.taskSupport === 'forbidden')
        throw McpError.methodNotFound(`tools/call as a task (tool "${tool.name}" does not support tasks)`);
      if (!task && tool.taskSupport === 'required')
        throw McpError.methodNotFound(`tools/call without a task (tool "${tool.name}" must run as a task)`);
      return task ? tasks().callTool(tools, tool, args, task, scope) : undefined;
    },
    // A tool that never runs as a task is not the task machinery's business (ModernTasks.intercept says the same).
    interceptModernToolCall: (call) =>
      call.tool.taskSupport === 'required' || call.tool.taskSupport === 'optional' ? tasks().modern.intercept(tools, call) : undefined,
  };
}
