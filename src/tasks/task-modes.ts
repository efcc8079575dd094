import { McpError } from '../mcp/mcp.error';
import { related } from './task-results';
import { RESPONSE_MODES, type ResponseMode, type TaskOutcome } from './task.types';

/** Picks the response mode: immediate > streaming > task among the client's; task when none fits. */
export function negotiate(requested: unknown): { mode: ResponseMode; fallback: boolean } {
  if (!Array.isArray(requested) || requested.length === 0) return { mode: 'task', fallback: false };
  const mode = RESPONSE_MODES.find((m) => requested.includes(m));
  return mode ? { mode, fallback: false } : { mode: 'task', fallback: true };
}

/** The result of a task that finished within the immediate window, tied to its task. */
export function immediateAnswer(outcome: TaskOutcome, taskId: string): Record<string, unknown> {
  if ('error' in outcome) throw new McpError(outcome.error.code, outcome.error.message, outcome.error.data);
  return { ...outcome.result, _meta: { ...(outcome.result._meta as object | undefined), ...related(taskId) } };
}

export function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}
