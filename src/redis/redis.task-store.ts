import type { ContentBlock } from '../mcp/mcp-types';
import { InvalidTaskCursorError, InvalidTaskTransitionError, StorageUnavailableError } from '../tasks/task-store.errors';
import type { CreateTaskInput, TaskStore } from '../tasks/task-store';
import type { Task, TaskOutcome, TaskRecord, TaskSegment, TaskStatus, TerminalStatus } from '../tasks/task.types';
import { randomUUID } from 'node:crypto';
import { connect, guarded, type RedisClient, type RedisConnection, redisSpanAttributes, whenReady } from './redis-connection';
import { hashTag, tagOf } from './redis-keys';
import { RedisWaiters } from './redis-waiters';
import { APPEND, CREATE, TAKE_LAPSED, TRANSITION } from './task-store.scripts';

export interface RedisTaskStoreOptions {
  /** Prefix of every key and channel (default `mcpkit:`). */
  keyPrefix?: string;
  /** How long an expired task id is remembered for "Task has expired", in ms (default one hour). */
  tombstoneMs?: number;
  /** Told about connection errors (the store never throws them as events). */
  onError?: (error: Error) => void;
  /**
   * How often a `waitForChange` caller reads the task again although no message woke it, in ms
   * (default 5000): pub/sub loses the messages published while a connection is down, so this bounds
   * how late such a waiter wakes. It also reads again at once whenever its subscription is restored.
   */
  recheckMs?: number;
}

type Commands = RedisClient & {
  mcpCreate(...args: (string | number)[]): Promise<string[]>;
  mcpTransition(...args: string[]): Promise<string[] | null>;
  mcpAppend(...args: string[]): Promise<string[]>;
  mcpTakeLapsed(key: string, taskId: string, now: number): Promise<number>;
};

/**
 * A TaskStore on Redis, shared by every instance of a deployment: ttl as Redis expiry, status
 * changes as Lua scripts (atomic across instances), owner indexes as sorted sets, segments as lists,
 * and `waitForChange` woken through pub/sub. Leases let another instance fail the tasks of an
 * instance that died.
 *
 * Ready for Redis Cluster: a task id starts with its owner's hash tag, so that a task's keys and its
 * owner's indexes share one slot (each operation is one script or pipeline on one slot), while the
 * tasks of different owners spread over the masters. Channels are script arguments, not keys.
 */
export class RedisTaskStore implements TaskStore {
  readonly distributed = true;
  private readonly redis: Commands;
  private readonly owned: boolean;
  private readonly prefix: string;
  private readonly waiters: RedisWaiters;
  private readonly onError: (error: Error) => void;
  /**
   * When the store was last seen unreachable: the connection became ready again, or renewing or
   * reaping leases failed. Leases could not be renewed until then. A Cluster client stays ready while
   * one of its masters fails over, and may retry a call until the failover ends, so a node's errors
   * and the nodes joining or leaving count too.
   */
  private troubleAt = Date.now();

  constructor(
    connection: RedisConnection,
    private readonly options: RedisTaskStoreOptions = {},
  ) {
    const onError = (this.onError = options.onError ?? (() => undefined));
    const { redis, owned } = connect(connection, onError);
    this.redis = redis as Commands;
    this.owned = owned;
    this.prefix = options.keyPrefix ?? 'mcpkit:';
    this.redis.defineCommand('mcpCreate', { numberOfKeys: 5, lua: CREATE });
    this.redis.defineCommand('mcpTransition', { numberOfKeys: 3, lua: TRANSITION });
    this.redis.defineCommand('mcpAppend', { numberOfKeys: 2, lua: APPEND });
    this.waiters = new RedisWaiters(this.redis, onError, options.recheckMs);
    this.redis.defineCommand('mcpTakeLapsed', { numberOfKeys: 1, lua: TAKE_LAPSED });
    for (const event of ['ready', 'node error', '+node', '-node']) this.redis.on(event, () => (this.troubleAt = Date.now()));
  }

  create(input: CreateTaskInput): Promise<TaskRecord> {
    return guarded('The task store', this.redis, async () => {
      // The owner's tag in front of the id puts the task in the slot of its owner's indexes.
      const taskId = `${tagOf(input.owner)}.${randomUUID()}`;
      const k = this.keys(taskId);
      const o = this.ownerKeys(hashTag(input.owner), input.owner);
      const fields = await this.redis.mcpCreate(
        k.task,
        o.index,
        o.seq,
        k.known,
        o.active,
        taskId,
        input.owner,
        new Date().toISOString(),
        input.ttl,
        input.pollInterval ?? '',
        input.statusMessage ?? '',
        this.options.tombstoneMs ?? 3_600_000,
        Date.now(),
      );
      return toRecord(taskId, fields)!;
    });
  }

  get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    return guarded('The task store', this.redis, async () => {
      const record = toRecord(taskId, await this.redis.hgetall(this.keys(taskId).task));
      return record && record.owner === owner ? record : undefined;
    });
  }

  wasExpired(taskId: string): Promise<boolean> {
    return guarded('The task store', this.redis, async () => {
      const k = this.keys(taskId);
      const [known, live] = await Promise.all([this.redis.exists(k.known), this.redis.exists(k.task)]);
      return known === 1 && live === 0;
    });
  }

  setStatus(taskId: string, owner: string, status: 'working' | 'input_required', statusMessage?: string): Promise<TaskRecord | undefined> {
    return this.transition(taskId, owner, status, statusMessage, undefined);
  }

  finish(
    taskId: string,
    owner: string,
    status: TerminalStatus,
    outcome: TaskOutcome,
    statusMessage?: string,
  ): Promise<TaskRecord | undefined> {
    return this.transition(taskId, owner, status, statusMessage, outcome);
  }

  outcome(taskId: string, owner: string): Promise<TaskOutcome | undefined> {
    return guarded('The task store', this.redis, async () => {
      if (!(await this.get(taskId, owner))) return undefined;
      const raw = await this.redis.get(this.keys(taskId).outcome);
      return raw === null ? undefined : (JSON.parse(raw) as TaskOutcome);
    });
  }

  list(owner: string, cursor: string | undefined, limit: number): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    return guarded('The task store', this.redis, async () => {
      let after = 0;
      if (cursor !== undefined) {
        const m = /^s(\d{1,15})$/.exec(/^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '');
        if (!m) throw new InvalidTaskCursorError(cursor);
        after = Number(m[1]);
      }
      // The owner's index and its tasks share the owner's slot: one pipeline reads a page.
      const index = this.ownerKeys(hashTag(owner), owner).index;
      const found: { record: TaskRecord; seq: number }[] = [];
      // One more than a page tells whether there is a next one; expired entries are skipped (and dropped).
      while (found.length <= limit) {
        const want = limit + 1 - found.length;
        const batch = await this.redis.zrangebyscore(index, `(${after}`, '+inf', 'WITHSCORES', 'LIMIT', 0, want);
        if (batch.length === 0) break;
        const pipeline = this.redis.pipeline();
        for (let i = 0; i < batch.length; i += 2) pipeline.hgetall(this.keys(batch[i]).task);
        const rows = (await pipeline.exec()) ?? [];
        for (let i = 0; i < batch.length; i += 2) {
          after = Number(batch[i + 1]);
          const record = toRecord(batch[i], rows[i / 2]?.[1] as Record<string, string>);
          if (record) found.push({ record, seq: after });
          // Housekeeping of an expired entry, not awaited: it is skipped either way, and a failed removal
          // is retried by the next listing.
          else void this.redis.zrem(index, batch[i]).catch(() => undefined);
        }
        if (batch.length < want * 2) break;
      }
      const page = found.slice(0, limit);
      const tasks = page.map((f) => f.record);
      return found.length > limit ? { tasks, nextCursor: Buffer.from(`s${page[page.length - 1].seq}`).toString('base64url') } : { tasks };
    });
  }

  /** Live tasks are kept in a sorted set scored by expiry: counting drops the expired, then counts. */
  countActive(owner: string): Promise<number> {
    return guarded('The task store', this.redis, async () => {
      const key = this.ownerKeys(hashTag(owner), owner).active;
      const [, [, count]] = (await this.redis.multi().zremrangebyscore(key, '-inf', Date.now()).zcard(key).exec()) as [
        [null, number],
        [null, number],
      ];
      return count;
    });
  }

  appendSegments(taskId: string, owner: string, blocks: ContentBlock[]): Promise<TaskSegment[]> {
    return guarded('The task store', this.redis, async () => {
      const k = this.keys(taskId);
      try {
        const added = await this.redis.mcpAppend(k.task, k.segments, owner, k.channel, ...blocks.map((b) => JSON.stringify(b)));
        return added.map((s) => JSON.parse(s) as TaskSegment);
      } catch (error) {
        throw terminal(error, taskId) ?? error;
      }
    });
  }

  segments(taskId: string, owner: string, afterSeqNr: number): Promise<TaskSegment[]> {
    return guarded('The task store', this.redis, async () => {
      if (!(await this.get(taskId, owner))) return [];
      const raw = await this.redis.lrange(this.keys(taskId).segments, afterSeqNr, -1);
      return raw.map((s) => JSON.parse(s) as TaskSegment);
    });
  }

  async waitForChange(taskId: string, owner: string, version: number, signal?: AbortSignal): Promise<void> {
    const k = this.keys(taskId);
    await guarded('The task store', this.redis, () =>
      this.waiters.wait(k.channel, signal, async () => {
        const record = await this.get(taskId, owner);
        if (!record || record.version !== version) return 0;
        const ttl = await this.redis.pttl(k.task);
        return ttl > 0 ? ttl : 1;
      }),
    );
  }

  /** Marks tasks as running on a live instance until `leaseMs` from now. */
  renewLeases(taskIds: string[], leaseMs: number): Promise<void> {
    return this.noting(
      guarded('The task store', this.redis, async () => {
        if (taskIds.length === 0) return;
        const deadline = Date.now() + leaseMs;
        const byKey = new Map<string, (string | number)[]>();
        for (const id of taskIds) {
          const key = this.leaseKey(id);
          byKey.set(key, [...(byKey.get(key) ?? []), deadline, id]);
        }
        await Promise.all([...byKey].map(([key, members]) => this.redis.zadd(key, ...members)));
      }),
    );
  }

  /** The task stopped running here (it ended). */
  releaseLease(taskId: string): Promise<void> {
    return guarded('The task store', this.redis, async () => void (await this.redis.zrem(this.leaseKey(taskId), taskId)));
  }

  /** Fails the tasks whose lease ran out (their instance died); returns those it failed. */
  reapAbandoned(statusMessage: string, graceMs: number): Promise<TaskRecord[]> {
    return this.noting(this.reap(statusMessage, graceMs));
  }

  /** Notes when the store was unreachable (see `troubleAt`). */
  private async noting<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof StorageUnavailableError) this.troubleAt = Date.now();
      throw error;
    }
  }

  private reap(statusMessage: string, graceMs: number): Promise<TaskRecord[]> {
    return guarded('The task store', this.redis, async () => {
      // Right after an outage every lease looks expired: give the live instances time to renew first.
      if (Date.now() - this.troubleAt < graceMs) return [];
      const now = Date.now();
      const lapsed = await Promise.all(
        LEASE_BUCKETS.map(async (bucket) => {
          const key = `${this.prefix}leases:${bucket}`;
          return (await this.redis.zrangebyscore(key, '-inf', now)).map((id) => ({ key, id }));
        }),
      );
      const reaped: TaskRecord[] = [];
      for (const { key, id } of lapsed.flat()) {
        // Only one instance takes a lapsed lease, so a task is failed once; a renewed one is left alone.
        if ((await this.redis.mcpTakeLapsed(key, id, now)) !== 1) continue;
        const owner = await this.redis.hget(this.keys(id).task, 'owner');
        if (!owner) continue;
        const outcome: TaskOutcome = { result: { content: [{ type: 'text', text: statusMessage }], isError: true } };
        const record = await this.finish(id, owner, 'failed', outcome, statusMessage).catch((error: unknown) => {
          // A task that ended meanwhile refuses the transition: nothing to reap. Anything else is reported.
          if (!(error instanceof InvalidTaskTransitionError)) this.onError(error instanceof Error ? error : new Error(String(error)));
          return undefined;
        });
        if (record) reaped.push(record);
      }
      return reaped;
    });
  }

  /** Readiness: the connection is up (waiting a moment while it connects) and the Redis server answers PING. */
  async ready(): Promise<void> {
    await whenReady(this.redis);
    await this.redis.ping();
  }

  /** Attributes of the span around an operation (telemetry 'full'). */
  spanAttributes(): Record<string, string> {
    return redisSpanAttributes();
  }

  async close(): Promise<void> {
    await this.waiters.close();
    if (this.owned) this.redis.disconnect();
  }

  private transition(
    taskId: string,
    owner: string,
    status: TaskStatus,
    statusMessage: string | undefined,
    outcome: TaskOutcome | undefined,
  ): Promise<TaskRecord | undefined> {
    return guarded('The task store', this.redis, async () => {
      const k = this.keys(taskId);
      try {
        const fields = await this.redis.mcpTransition(
          k.task,
          k.outcome,
          this.ownerKeys(taskTag(taskId), owner).active,
          owner,
          status,
          statusMessage === undefined ? '-' : `+${statusMessage}`,
          new Date().toISOString(),
          outcome ? JSON.stringify(outcome) : '',
          taskId,
          k.channel,
        );
        return fields ? toRecord(taskId, fields) : undefined;
      } catch (error) {
        throw terminal(error, taskId, status) ?? error;
      }
    });
  }

  /** The sorted set holding the task's lease: one of LEASE_BUCKETS, picked by the task's tag. */
  private leaseKey(taskId: string): string {
    return `${this.prefix}leases:${LEASE_BUCKETS[parseInt(taskTag(taskId).slice(1, 9), 16) % LEASE_BUCKETS.length]}`;
  }

  /** A task's keys, in the slot its id names; its channel is not a key (Cluster publishes it to every node). */
  private keys(taskId: string) {
    const base = `${this.prefix}t:${taskTag(taskId)}:${taskId}`;
    return { task: base, outcome: `${base}:out`, segments: `${base}:seg`, known: `${base}:known`, channel: `${this.prefix}ch:${taskId}` };
  }

  /**
   * The owner's index (tasks by creation number), its counter and its live tasks (by expiry), under a
   * hash tag: the owner's own, or a task's (the same for the owner's tasks), so that a script on the
   * task may touch them.
   */
  private ownerKeys(tag: string, owner: string) {
    return {
      index: `${this.prefix}o:${tag}:${owner}`,
      seq: `${this.prefix}o:${tag}:${owner}:seq`,
      active: `${this.prefix}oa:${tag}:${owner}`,
    };
  }
}

/**
 * Leases live in 16 sorted sets, each under a hash tag of its own, so that no single key takes every
 * renewal and every task's end: on a Cluster they spread over the masters. A reaper reads all 16.
 */
const LEASE_BUCKETS: readonly string[] = Array.from({ length: 16 }, (_, n) => `{lease${n}}`);

/** The hash tag a task id starts with (its owner's); an id of any other form gets a tag of its own. */
function taskTag(taskId: string): string {
  const m = /^([0-9a-f]{8})\./.exec(taskId);
  return m ? `{${m[1]}}` : hashTag(taskId);
}

function terminal(error: unknown, taskId: string, to?: TaskStatus): InvalidTaskTransitionError | undefined {
  const m = error instanceof Error ? /TERMINAL (\w+)/.exec(error.message) : null;
  if (!m) return undefined;
  const from = m[1] as TaskStatus;
  return new InvalidTaskTransitionError(taskId, from, to ?? from);
}

/** HGETALL reply (object or flat array) -> TaskRecord. */
function toRecord(taskId: string, reply: Record<string, string> | string[] | null | undefined): TaskRecord | undefined {
  if (!reply) return undefined;
  const h: Record<string, string> = Array.isArray(reply) ? Object.fromEntries(pairs(reply)) : reply;
  if (!h.status) return undefined;
  const task: Task = { taskId, status: h.status as TaskStatus, createdAt: h.createdAt, lastUpdatedAt: h.lastUpdatedAt, ttl: Number(h.ttl) };
  if (h.statusMessage !== undefined) task.statusMessage = h.statusMessage;
  if (h.pollInterval !== undefined) task.pollInterval = Number(h.pollInterval);
  return { task, owner: h.owner, version: Number(h.version), lastSeqNr: Number(h.lastSeqNr) };
}

function pairs(flat: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}
