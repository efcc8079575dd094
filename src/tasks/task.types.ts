import type { JsonRpcErrorObject } from '../mcp/json-rpc';
import type { ContentBlock } from '../mcp/mcp-types';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
export type TerminalStatus = 'completed' | 'failed' | 'cancelled';
export const TERMINAL_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

export function isTerminal(status: TaskStatus): status is TerminalStatus {
  return TERMINAL_STATUSES.includes(status);
}

/** A task as the protocol shows it (`tasks/get`, `notifications/tasks/status`). */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** Milliseconds from creation before the task may be deleted; null for unlimited. */
  ttl: number | null;
  pollInterval?: number;
}

/** A task as a store keeps it: the protocol view, its owner, and change counters. */
export interface TaskRecord {
  task: Task;
  /** Who may see the task (an auth subject or a session). */
  owner: string;
  /** Increases on every change (status or segments); `waitForChange` compares it. */
  version: number;
  /** The highest segment number appended so far (0 when none). */
  lastSeqNr: number;
}

/** What the underlying request ended with: a result, or a JSON-RPC error. */
export type TaskOutcome = { result: Record<string, unknown> } | { error: JsonRpcErrorObject };

/** A streamed result segment: a content block with its sequence number. */
export type TaskSegment = ContentBlock & { seqNr: number };

/** `_meta` keys of the tasks specification and the task-result-streaming proposal (RELATED_TASK is vocabulary: src/mcp). */
export { RELATED_TASK } from '../mcp/mcp-types';
export const MODEL_IMMEDIATE_RESPONSE = 'io.modelcontextprotocol/model-immediate-response';
export const FALLBACK_MODE = 'io.modelcontextprotocol/fallback-mode';

export type ResponseMode = 'immediate' | 'streaming' | 'task';
/** The server's modes in the order the proposal prefers them. */
export const RESPONSE_MODES: readonly ResponseMode[] = ['immediate', 'streaming', 'task'];
