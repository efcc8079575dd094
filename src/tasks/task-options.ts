/** Limits and defaults of task execution (module or application option `tasks`). */
export interface TaskOptions {
  /** Longest ttl a client may ask for, in ms (default one hour); longer requests are capped. */
  maxTtlMs?: number;
  /** ttl of a task whose request names none, in ms (default 10 minutes). */
  defaultTtlMs?: number;
  /** The pollInterval suggested to clients, in ms (default 1 000). */
  pollIntervalMs?: number;
  /** Most tasks one owner may have running at once (default 16); more are refused with -32600. */
  maxActivePerOwner?: number;
  /** In `immediate` response mode, how long to wait for the result before answering with a task, in ms (default 100). */
  immediateWindowMs?: number;
  /**
   * With a distributed store: how long a task's lease lasts without renewal, in ms (default 15 000).
   * A task whose instance died is failed once its lease runs out.
   */
  leaseMs?: number;
}

export type ResolvedTaskOptions = Required<TaskOptions>;

export function resolveTaskOptions(options: TaskOptions = {}): ResolvedTaskOptions {
  return {
    maxTtlMs: options.maxTtlMs ?? 3_600_000,
    defaultTtlMs: options.defaultTtlMs ?? 600_000,
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    maxActivePerOwner: options.maxActivePerOwner ?? 16,
    immediateWindowMs: options.immediateWindowMs ?? 100,
    leaseMs: options.leaseMs ?? 15_000,
  };
}
