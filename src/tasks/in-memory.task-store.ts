import { randomUUID } from 'node:crypto';
import type { ContentBlock } from '../mcp/mcp-types';
import { InvalidTaskCursorError, InvalidTaskTransitionError, TaskStoreFullError } from './task-store.errors';
import type { CreateTaskInput, TaskStore } from './task-store';
import { isTerminal, type TaskOutcome, type TaskRecord, type TaskSegment, type TerminalStatus } from './task.types';

interface Entry {
  record: TaskRecord;
  seq: number;
  expiresAt: number;
  outcome?: TaskOutcome;
  segments: TaskSegment[];
  waiters: Set<() => void>;
}

export interface InMemoryTaskStoreOptions {
  /** Most tasks kept at once (default 10 000); terminal tasks are evicted first, oldest first. */
  maxTasks?: number;
  /** How often expired tasks are swept, in ms (default 1 000). */
  sweepIntervalMs?: number;
  /** How many expired ids are remembered for "Task has expired" errors (default 10 000). */
  maxTombstones?: number;
}

/**
 * The default TaskStore: bounded, in process memory, tasks deleted when their ttl runs out. Its one
 * timer is unref'd and stopped by `close()`.
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, Entry>();
  private readonly byOwner = new Map<string, Map<string, Entry>>();
  private readonly tombstones = new Set<string>();
  /** Live (non-terminal) tasks per owner, kept up to date so that the per-owner limit costs O(1). */
  private readonly active = new Map<string, number>();
  private nextSeq = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: InMemoryTaskStoreOptions = {}) {
    this.timer = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 1_000);
    this.timer.unref();
  }

  async create(input: CreateTaskInput): Promise<TaskRecord> {
    this.makeRoom();
    const now = new Date();
    const taskId = randomUUID();
    const record: TaskRecord = {
      task: { taskId, status: 'working', createdAt: now.toISOString(), lastUpdatedAt: now.toISOString(), ttl: input.ttl },
      owner: input.owner,
      version: 1,
      lastSeqNr: 0,
    };
    if (input.pollInterval !== undefined) record.task.pollInterval = input.pollInterval;
    if (input.statusMessage !== undefined) record.task.statusMessage = input.statusMessage;
    const entry: Entry = { record, seq: ++this.nextSeq, expiresAt: now.getTime() + input.ttl, segments: [], waiters: new Set() };
    this.tasks.set(taskId, entry);
    let owned = this.byOwner.get(input.owner);
    if (!owned) this.byOwner.set(input.owner, (owned = new Map<string, Entry>()));
    owned.set(taskId, entry);
    this.active.set(input.owner, (this.active.get(input.owner) ?? 0) + 1);
    return copy(record);
  }

  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const entry = this.entry(taskId, owner);
    return entry && copy(entry.record);
  }

  async wasExpired(taskId: string): Promise<boolean> {
    this.entry(taskId, undefined);
    return this.tombstones.has(taskId);
  }

  async setStatus(
    taskId: string,
    owner: string,
    status: 'working' | 'input_required',
    statusMessage?: string,
  ): Promise<TaskRecord | undefined> {
    const entry = this.entry(taskId, owner);
    if (!entry) return undefined;
    const from = entry.record.task.status;
    if (isTerminal(from)) throw new InvalidTaskTransitionError(taskId, from, status);
    this.update(entry, status, statusMessage);
    return copy(entry.record);
  }

  async finish(
    taskId: string,
    owner: string,
    status: TerminalStatus,
    outcome: TaskOutcome,
    statusMessage?: string,
  ): Promise<TaskRecord | undefined> {
    const entry = this.entry(taskId, owner);
    if (!entry) return undefined;
    const from = entry.record.task.status;
    if (isTerminal(from)) throw new InvalidTaskTransitionError(taskId, from, status);
    entry.outcome = outcome;
    this.update(entry, status, statusMessage);
    this.countDown(entry.record.owner);
    return copy(entry.record);
  }

  async outcome(taskId: string, owner: string): Promise<TaskOutcome | undefined> {
    return this.entry(taskId, owner)?.outcome;
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    let after = 0;
    if (cursor !== undefined) {
      // Checked before decoding: a caller may hand on whatever a client sent.
      const m =
        typeof cursor === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(cursor)
          ? /^t(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
          : null;
      if (!m) throw new InvalidTaskCursorError(String(cursor));
      after = Number(m[1]);
    }
    const tasks: TaskRecord[] = [];
    let last = 0;
    let more = false;
    for (const entry of this.byOwner.get(owner)?.values() ?? []) {
      if (entry.seq <= after || this.expired(entry)) continue;
      if (tasks.length === limit) {
        more = true;
        break;
      }
      tasks.push(copy(entry.record));
      last = entry.seq;
    }
    return more ? { tasks, nextCursor: Buffer.from(`t${last}`).toString('base64url') } : { tasks };
  }

  async countActive(owner: string): Promise<number> {
    return this.active.get(owner) ?? 0;
  }

  private countDown(owner: string): void {
    const n = (this.active.get(owner) ?? 1) - 1;
    if (n > 0) this.active.set(owner, n);
    else this.active.delete(owner);
  }

  async appendSegments(taskId: string, owner: string, blocks: ContentBlock[]): Promise<TaskSegment[]> {
    const entry = this.entry(taskId, owner);
    if (!entry) return [];
    const status = entry.record.task.status;
    if (isTerminal(status)) throw new InvalidTaskTransitionError(taskId, status, status);
    const added = blocks.map((block) => ({ ...block, seqNr: ++entry.record.lastSeqNr }));
    entry.segments.push(...added);
    entry.record.version++;
    this.wake(entry);
    return added;
  }

  async segments(taskId: string, owner: string, afterSeqNr: number): Promise<TaskSegment[]> {
    const entry = this.entry(taskId, owner);
    if (!entry) return [];
    return entry.segments.filter((s) => s.seqNr > afterSeqNr);
  }

  waitForChange(taskId: string, owner: string, version: number, signal?: AbortSignal): Promise<void> {
    const entry = this.entry(taskId, owner);
    if (!entry || entry.record.version !== version || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        entry.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      entry.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Readiness: memory is always there. */
  async ready(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.timer);
    for (const entry of this.tasks.values()) this.wake(entry);
  }

  private entry(taskId: string, owner: string | undefined): Entry | undefined {
    const entry = this.tasks.get(taskId);
    if (!entry) return undefined;
    if (this.expired(entry)) {
      this.remove(entry, true);
      return undefined;
    }
    return owner === undefined || entry.record.owner === owner ? entry : undefined;
  }

  private update(entry: Entry, status: TaskRecord['task']['status'], statusMessage?: string): void {
    const task = entry.record.task;
    task.status = status;
    if (statusMessage !== undefined) task.statusMessage = statusMessage;
    else delete task.statusMessage;
    task.lastUpdatedAt = new Date().toISOString();
    entry.record.version++;
    this.wake(entry);
  }

  private wake(entry: Entry): void {
    for (const waiter of [...entry.waiters]) waiter();
  }

  private expired(entry: Entry): boolean {
    return entry.expiresAt <= Date.now();
  }

  private remove(entry: Entry, expired: boolean): void {
    const { taskId } = entry.record.task;
    this.tasks.delete(taskId);
    const owned = this.byOwner.get(entry.record.owner);
    owned?.delete(taskId);
    if (!isTerminal(entry.record.task.status)) this.countDown(entry.record.owner);
    if (owned?.size === 0) this.byOwner.delete(entry.record.owner);
    if (expired) {
      this.tombstones.add(taskId);
      if (this.tombstones.size > (this.options.maxTombstones ?? 10_000)) this.tombstones.delete(this.tombstones.values().next().value!);
    }
    this.wake(entry);
  }

  private sweep(): void {
    for (const entry of this.tasks.values()) if (this.expired(entry)) this.remove(entry, true);
  }

  private makeRoom(): void {
    const max = this.options.maxTasks ?? 10_000;
    if (this.tasks.size < max) return;
    this.sweep();
    for (const entry of this.tasks.values()) {
      if (this.tasks.size < max) return;
      if (isTerminal(entry.record.task.status)) this.remove(entry, false);
    }
    if (this.tasks.size >= max) throw new TaskStoreFullError(max);
  }
}

function copy(record: TaskRecord): TaskRecord {
  return { ...record, task: { ...record.task } };
}
