import { ErrorCode } from '../mcp/json-rpc';
import { McpError, mcpErrorOf } from '../mcp/mcp.error';
import { keepLeases, watchForCancellation } from './task-leases';
import { delay } from './task-modes';
import type { ResolvedTaskOptions } from './task-options';
import { InvalidTaskTransitionError, StorageUnavailableError } from './task-store.errors';
import type { TaskStore } from './task-store';
import type { TaskOutcome, TaskRecord, TerminalStatus } from './task.types';

/** What a task that was cancelled by request holds as its outcome. */
const CANCELLED: TaskOutcome = { result: { content: [{ type: 'text', text: 'The task was cancelled' }], isError: true } };

/** How long to wait before asking an unavailable store again to record a task's end. */
const SAVE_RETRY_MS = 250;
/** How long shutdown waits for aborted handlers to record their end and give up their leases, before the stores close. */
const CLOSE_GRACE_MS = 5_000;

interface Running {
  readonly controller: AbortController;
  /** Settles once the task's end is recorded and its lease released (or given up). */
  readonly ended: Promise<void>;
}

/**
 * The one task engine under both protocol eras: the per-owner limit, time to live, the tasks running
 * in this process (their leases, and cancellation made through another instance), status changes,
 * cancellation, and recording a task's end, retried while the store is unavailable so that a result
 * outlives a storage outage. The 2025-11-25 tasks (TaskManager) and the 2026-07-28 tasks extension
 * (PerRequestTasks) only map their wire formats onto it.
 */
export class TaskEngine {
  /** The handlers running in this process, by task id. */
  private readonly running = new Map<string, Running>();
  private readonly timers: NodeJS.Timeout[];
  private closing = false;

  constructor(
    readonly store: TaskStore,
    readonly options: ResolvedTaskOptions,
    private readonly logError: (message: string, error?: unknown) => void,
  ) {
    this.timers = keepLeases(store, options.leaseMs, () => [...this.running.keys()], logError);
  }

  /** Refuses a new task to an owner at its limit of tasks in progress. */
  async admit(owner: string): Promise<void> {
    if ((await this.store.countActive(owner)) >= this.options.maxActivePerOwner) {
      throw McpError.invalidRequest(`Too many tasks in progress: at most ${this.options.maxActivePerOwner} at a time`);
    }
  }

  /** A new task's record: it lives what the client asked (a positive number), else the default, never past the maximum. */
  create(owner: string, requestedTtl?: unknown, statusMessage?: string): Promise<TaskRecord> {
    const ttl = typeof requestedTtl === 'number' && requestedTtl > 0 ? requestedTtl : this.options.defaultTtlMs;
    return this.store.create({
      owner,
      ttl: Math.min(ttl, this.options.maxTtlMs),
      pollInterval: this.options.pollIntervalMs,
      statusMessage,
    });
  }

  /**
   * Marks a task as running here: it gets a lease, and with a shared store a cancellation made through
   * another instance aborts `controller`. The function returned ends that (call it once the end is recorded).
   */
  async begin(record: TaskRecord, controller: AbortController): Promise<() => Promise<void>> {
    const { taskId } = record.task;
    let ended: () => void = () => undefined;
    this.running.set(taskId, { controller, ended: new Promise<void>((resolve) => (ended = resolve)) });
    await this.store.renewLeases?.([taskId], this.options.leaseMs).catch((e) => this.logError('Could not take a task lease', e));
    const watching = new AbortController();
    // Never rejects: it logs what it could not read.
    if (this.store.distributed) void watchForCancellation(this.store, taskId, record.owner, controller, watching.signal, this.logError);
    return async () => {
      watching.abort();
      try {
        // Best effort: an unreleased lease delays nothing, since the task is already terminal.
        await this.store.releaseLease?.(taskId).catch((e) => this.logError(`Could not release the lease of task ${taskId}`, e));
      } finally {
        this.running.delete(taskId);
        ended();
      }
    };
  }

  /** The outcome of a handler that threw: its McpError, else an internal error (logged; its message stays here). */
  outcomeOfError(error: unknown, where: string): TaskOutcome {
    const mapped = mcpErrorOf(error);
    if (!mapped) this.logError(`${where} failed`, error);
    const e = mapped ?? new McpError(ErrorCode.InternalError, 'Internal error');
    return { error: e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data } };
  }

  /**
   * Records how a task ended. While the store is unavailable the outcome is kept and saving it retried
   * (the task's lease is renewed meanwhile) until the longest time to live has passed, so a result is
   * not lost to a storage outage. Resolves with the terminal record, or undefined when it was not
   * recorded (cancelled meanwhile: it stays cancelled; or the store failed otherwise: logged).
   * `firstTry` is told once the first attempt is over, whatever came of it.
   */
  async settle(
    record: TaskRecord,
    status: 'completed' | 'failed',
    outcome: TaskOutcome,
    message?: string,
    firstTry?: () => void,
  ): Promise<TaskRecord | undefined> {
    const { taskId } = record.task;
    const deadline = Date.now() + this.options.maxTtlMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.store.finish(taskId, record.owner, status, outcome, message);
      } catch (error) {
        if (error instanceof InvalidTaskTransitionError) return undefined;
        // Shutting down, the store goes next: the lease lapses and another instance fails the task.
        if (!(error instanceof StorageUnavailableError) || Date.now() > deadline || this.closing) {
          this.logError(`Could not record the end of task ${taskId}`, error);
          return undefined;
        }
      } finally {
        if (attempt === 0) firstTry?.();
      }
      await delay(SAVE_RETRY_MS);
    }
  }

  /** Moves a running task between working and input_required; a task that ended meanwhile keeps its status. */
  async setLiveStatus(record: TaskRecord, status: 'working' | 'input_required'): Promise<TaskRecord | undefined> {
    try {
      return await this.store.setStatus(record.task.taskId, record.owner, status);
    } catch (error) {
      if (!(error instanceof InvalidTaskTransitionError)) this.logError(`Could not set task ${record.task.taskId} ${status}`, error);
      return undefined;
    }
  }

  /**
   * Cancels a task by request: recorded as cancelled (throws InvalidTaskTransitionError when it ended
   * first), then its handler, if it runs here, is aborted.
   */
  async cancel(record: TaskRecord): Promise<TaskRecord | undefined> {
    const { taskId } = record.task;
    const done = await this.store.finish(
      taskId,
      record.owner,
      'cancelled' satisfies TerminalStatus,
      CANCELLED,
      'The task was cancelled by request.',
    );
    this.abort(taskId);
    return done;
  }

  /** Aborts the handler of a task, if it runs here, as cancelled. */
  abort(taskId: string): void {
    this.running.get(taskId)?.controller.abort(new McpError(ErrorCode.InvalidRequest, 'The task was cancelled'));
  }

  /** True while the task's handler runs in this process. */
  runsHere(taskId: string): boolean {
    return this.running.has(taskId);
  }

  /**
   * Stops the lease timers and aborts the handlers still running here (the server is shutting down),
   * then waits (5 s at most) for them to record their end and release their leases: the stores close next.
   */
  async close(): Promise<void> {
    this.closing = true;
    for (const t of this.timers) clearInterval(t);
    const running = [...this.running.values()];
    for (const r of running) r.controller.abort(new McpError(ErrorCode.InternalError, 'The server is shutting down'));
    if (running.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)));
    await Promise.race([Promise.all(running.map((r) => r.ended)), grace]);
    clearTimeout(timer);
  }
}
