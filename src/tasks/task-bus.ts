import type { JsonRpcErrorObject } from '../mcp/json-rpc';
import type { InputRequest } from './per-request-task-inputs';

/**
 * What the instances serving a task tell each other about its requests to the client. The kinds are a
 * wire format between instances, kept as first published (`modern-*` for the per-request era's), so that
 * instances of two versions understand each other during a rolling deploy.
 */
export type TaskBusMessage =
  /** A tasks/result for the task waits on instance `from`: it can carry the task's requests. */
  | { kind: 'waiting'; from: string }
  /** That tasks/result ended. */
  | { kind: 'left'; from: string }
  /**
   * The instance running the task now listens to its channel, and asks the instances waiting on it to say
   * so again: a `waiting` published before it listened was lost.
   */
  | { kind: 'probe'; from: string }
  /** The instance running the task asks instance `to` to send a request on its waiting tasks/result. */
  | { kind: 'input'; from: string; to: string; key: string; method: string; params: Record<string, unknown>; timeoutMs: number }
  /** The client's answer to input `key`, for the instance running the task. */
  | { kind: 'answer'; from: string; to: string; key: string; result?: unknown; error?: JsonRpcErrorObject }
  /** 2026-07-28 tasks: which input requests does the task wait on? (asked by a tasks/get or tasks/update elsewhere) */
  | { kind: 'modern-ask'; from: string; ask: string }
  /** The instance running the task tells them. */
  | {
      kind: 'modern-inputs';
      from: string;
      to: string;
      ask: string;
      requests: Record<string, InputRequest>;
    }
  /** The answers a tasks/update brought to another instance, checked there against those requests. */
  | { kind: 'modern-update'; from: string; responses: Record<string, unknown> };

/**
 * A channel per task between the instances of a deployment, so that a task running on one instance
 * can ask the client through a tasks/result that arrived at another. mcpkit wires one over the
 * session backplane when scaling out.
 */
export interface TaskBus {
  readonly instanceId: string;
  publish(taskId: string, message: TaskBusMessage): Promise<void>;
  /** Listens to a task's channel; resolves once listening, with the function that stops it. */
  subscribe(taskId: string, listener: (message: TaskBusMessage) => void): Promise<() => Promise<void>>;
}
