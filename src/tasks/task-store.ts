import type { ContentBlock } from '../mcp/mcp-types';
import type { TaskOutcome, TaskRecord, TaskSegment, TerminalStatus } from './task.types';

export interface CreateTaskInput {
  owner: string;
  /** Milliseconds before the task may be deleted (already capped by the server). */
  ttl: number;
  pollInterval?: number;
  statusMessage?: string;
}

/**
 * Where tasks live. mcpkit ships an in-memory store (the default) and a Redis one; inject your own
 * with the module option `taskStore`. Every read and write is scoped to an owner: a task of another
 * owner does not exist as far as the caller can tell. Implementations must enforce the lifecycle
 * (working <-> input_required -> completed | failed | cancelled; terminal never changes) atomically,
 * and must wake `waitForChange` callers on every change without polling.
 * The contract suite in src/testing/task-store.contract.ts (exported from mcpkit/testing) checks all of this for any store.
 */
export interface TaskStore {
  /** Creates a task in `working` status with a cryptographically random id. */
  create(input: CreateTaskInput): Promise<TaskRecord>;
  /** The task, or undefined when it does not exist, expired, or belongs to another owner. */
  get(taskId: string, owner: string): Promise<TaskRecord | undefined>;
  /** True when the task existed and was removed because its ttl ran out (for a precise error message). */
  wasExpired(taskId: string): Promise<boolean>;
  /** Moves a live task between `working` and `input_required`; throws InvalidTaskTransitionError on a terminal one. */
  setStatus(taskId: string, owner: string, status: 'working' | 'input_required', statusMessage?: string): Promise<TaskRecord | undefined>;
  /**
   * Ends a live task with a terminal status and (for completed/failed) the outcome of the underlying
   * request, in one atomic step; throws InvalidTaskTransitionError when the task is already terminal.
   */
  finish(
    taskId: string,
    owner: string,
    status: TerminalStatus,
    outcome: TaskOutcome,
    statusMessage?: string,
  ): Promise<TaskRecord | undefined>;
  /** The stored outcome of a terminal task. */
  outcome(taskId: string, owner: string): Promise<TaskOutcome | undefined>;
  /** The owner's tasks, oldest first, `limit` at a time; throws InvalidTaskCursorError for a bad cursor. */
  list(owner: string, cursor: string | undefined, limit: number): Promise<{ tasks: TaskRecord[]; nextCursor?: string }>;
  /** How many of the owner's tasks are not terminal. */
  countActive(owner: string): Promise<number>;
  /** Appends result segments, numbering them from the task's last seqNr + 1; returns them numbered. */
  appendSegments(taskId: string, owner: string, blocks: ContentBlock[]): Promise<TaskSegment[]>;
  /** Segments with seqNr greater than `afterSeqNr`, in order. */
  segments(taskId: string, owner: string, afterSeqNr: number): Promise<TaskSegment[]>;
  /**
   * Resolves once the task's version differs from `version` (at once if it already does), when the
   * task disappears, or when `signal` aborts.
   */
  waitForChange(taskId: string, owner: string, version: number, signal?: AbortSignal): Promise<void>;
  /** Releases timers and connections. */
  close(): Promise<void>;

  /**
   * True for stores shared by several instances: the instance running a task then watches for a
   * cancellation made through another one, and keeps a lease on the task (below).
   */
  readonly distributed?: boolean;
  /** Marks tasks as running on a live instance for `leaseMs` more. */
  renewLeases?(taskIds: string[], leaseMs: number): Promise<void>;
  /** The task stopped running here. */
  releaseLease?(taskId: string): Promise<void>;
  /**
   * Fails tasks whose lease ran out (their instance died) and returns them. A store that just
   * reconnected waits `graceMs` first: during an outage no instance could renew its leases.
   */
  /** Resolves when the store can serve (readiness endpoint); rejects with why not. Absent: always ready. */
  ready?(): Promise<void>;
  reapAbandoned?(statusMessage: string, graceMs: number): Promise<import('./task.types').TaskRecord[]>;
}
