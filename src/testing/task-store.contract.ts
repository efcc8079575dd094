import assert from 'node:assert/strict';
import { InvalidTaskCursorError, InvalidTaskTransitionError } from '../tasks/task-store.errors';
import type { TaskStore } from '../tasks/task-store';

/**
 * The test functions the contract needs; jest's and vitest's globals fit, and so does `node:test`:
 * `{ describe, it, beforeEach, afterEach }`.
 */
export interface TestSuiteFunctions {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>): unknown;
  beforeEach(body: () => Promise<void>): unknown;
  afterEach(body: () => Promise<void>): unknown;
}

export interface TaskStoreContractOptions {
  /** Runs after each test, once the store is closed (drop a database, stop a server). */
  teardown?: () => Promise<void>;
}

/**
 * The contract every TaskStore must meet: lifecycle, owner scoping, atomic terminal transitions,
 * cursors, segments, waking waiters without polling, ttl expiry. Call it from a test file with your
 * runner's functions and a factory for a fresh store (assertions use `node:assert`, so any runner works):
 * `describeTaskStoreContract({ describe, it, beforeEach, afterEach }, 'MyStore', async () => new MyStore(...))`.
 */
export function describeTaskStoreContract(
  t: TestSuiteFunctions,
  name: string,
  makeStore: () => Promise<TaskStore>,
  options: TaskStoreContractOptions = {},
): void {
  t.describe(`TaskStore contract: ${name}`, () => {
    let store: TaskStore;
    t.beforeEach(async () => {
      store = await makeStore();
    });
    t.afterEach(async () => {
      await store.close();
      await options.teardown?.();
    });

    const create = (owner = 'owner-a', ttl = 60_000) => store.create({ owner, ttl, pollInterval: 500 });

    t.it('creates working tasks with random ids, ISO timestamps, ttl and pollInterval', async () => {
      const a = await create();
      const b = await create();
      assert.notEqual(a.task.taskId, b.task.taskId);
      assert.ok(a.task.taskId.length >= 20, `task ids of at least 20 characters, not ${a.task.taskId}`);
      matches(a.task, { status: 'working', ttl: 60_000, pollInterval: 500 });
      assert.equal(new Date(a.task.createdAt).toISOString(), a.task.createdAt);
      assert.equal(a.task.lastUpdatedAt, a.task.createdAt);
      matches(a, { owner: 'owner-a', lastSeqNr: 0 });
      same(await store.get(a.task.taskId, 'owner-a'), a);
    });

    t.it('hides tasks from other owners', async () => {
      const a = await create('owner-a');
      assert.equal(await store.get(a.task.taskId, 'owner-b'), undefined);
      assert.equal(await store.setStatus(a.task.taskId, 'owner-b', 'input_required'), undefined);
      assert.equal(await store.finish(a.task.taskId, 'owner-b', 'completed', { result: {} }), undefined);
      assert.equal(await store.outcome(a.task.taskId, 'owner-b'), undefined);
      same(await store.list('owner-b', undefined, 10), { tasks: [] });
      assert.equal(await store.countActive('owner-b'), 0);
      assert.equal((await store.get(a.task.taskId, 'owner-a'))?.task.status, 'working');
    });

    t.it('enforces the lifecycle: working <-> input_required -> terminal, and terminal never changes', async () => {
      const { task } = await create();
      const id = task.taskId;
      matches((await store.setStatus(id, 'owner-a', 'input_required', 'need a file'))?.task, {
        status: 'input_required',
        statusMessage: 'need a file',
      });
      assert.equal((await store.setStatus(id, 'owner-a', 'working'))?.task.status, 'working');
      const done = await store.finish(id, 'owner-a', 'completed', { result: { content: [] } });
      assert.equal(done?.task.status, 'completed');
      await assert.rejects(store.setStatus(id, 'owner-a', 'working'), InvalidTaskTransitionError);
      await assert.rejects(store.finish(id, 'owner-a', 'cancelled', { result: {} }), InvalidTaskTransitionError);
      await assert.rejects(store.finish(id, 'owner-a', 'failed', { result: {} }), InvalidTaskTransitionError);
      assert.equal((await store.get(id, 'owner-a'))?.task.status, 'completed');
    });

    t.it('lets exactly one of two racing terminal transitions win', async () => {
      const { task } = await create();
      const results = await Promise.allSettled([
        store.finish(task.taskId, 'owner-a', 'cancelled', { result: { cancelled: true } }),
        store.finish(task.taskId, 'owner-a', 'completed', { result: { done: true } }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      assert.equal(won.length, 1, 'exactly one transition succeeds');
      const winner = (won[0] as PromiseFulfilledResult<{ task: { status: string } }>).value.task.status;
      assert.equal((await store.get(task.taskId, 'owner-a'))?.task.status, winner);
    });

    t.it('updates lastUpdatedAt and version on every change', async () => {
      const { task, version } = await create();
      await waitFor(() => Date.now() > Date.parse(task.createdAt), 'the clock to pass createdAt');
      const later = await store.setStatus(task.taskId, 'owner-a', 'input_required');
      assert.ok(later && later.version > version, 'the version grows');
      assert.ok(Date.parse(later.task.lastUpdatedAt) > Date.parse(task.createdAt), 'lastUpdatedAt moves');
    });

    t.it('stores the outcome of a terminal task, a result or a JSON-RPC error, of any size', async () => {
      const a = await create();
      const b = await create();
      const big = 'x'.repeat(2 * 1024 * 1024);
      await store.finish(a.task.taskId, 'owner-a', 'completed', { result: { content: [{ type: 'text', text: big }] } });
      await store.finish(b.task.taskId, 'owner-a', 'failed', { error: { code: -32602, message: 'bad', data: { x: 1 } } }, 'bad');
      same(await store.outcome(a.task.taskId, 'owner-a'), { result: { content: [{ type: 'text', text: big }] } });
      same(await store.outcome(b.task.taskId, 'owner-a'), { error: { code: -32602, message: 'bad', data: { x: 1 } } });
      matches((await store.get(b.task.taskId, 'owner-a'))?.task, { status: 'failed', statusMessage: 'bad' });
    });

    t.it("lists an owner's tasks oldest first with opaque cursors, and refuses foreign cursors", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await create()).task.taskId);
      await create('owner-b');
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.list('owner-a', cursor, 2);
        seen.push(...page.tasks.map((r) => r.task.taskId));
        cursor = page.nextCursor;
        pages++;
      } while (cursor);
      assert.deepEqual(seen, ids);
      assert.equal(pages, 3);
      await assert.rejects(store.list('owner-a', 'not a cursor!', 2), InvalidTaskCursorError);
      // A cursor whose text reads like a connection failure is still just a bad cursor.
      await assert.rejects(store.list('owner-a', 'connect', 2), InvalidTaskCursorError);
      await assert.rejects(store.list('owner-a', 'ECONNREFUSED', 2), InvalidTaskCursorError);
    });

    t.it("counts the owner's live tasks", async () => {
      const a = await create();
      await create();
      await store.finish(a.task.taskId, 'owner-a', 'completed', { result: {} });
      assert.equal(await store.countActive('owner-a'), 1);
    });

    t.it('appends segments numbered from 1 and reads them after a seqNr', async () => {
      const { task } = await create();
      const first = await store.appendSegments(task.taskId, 'owner-a', [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ]);
      const second = await store.appendSegments(task.taskId, 'owner-a', [{ type: 'text', text: 'c' }]);
      assert.deepEqual(
        first.map((s) => s.seqNr),
        [1, 2],
      );
      same(second, [{ type: 'text', text: 'c', seqNr: 3 }]);
      assert.equal((await store.get(task.taskId, 'owner-a'))?.lastSeqNr, 3);
      assert.deepEqual(
        (await store.segments(task.taskId, 'owner-a', 1)).map((s) => s.seqNr),
        [2, 3],
      );
      same(await store.segments(task.taskId, 'owner-a', 3), []);
      same(await store.segments(task.taskId, 'owner-b', 0), []);
      await store.finish(task.taskId, 'owner-a', 'completed', { result: {} });
      await assert.rejects(store.appendSegments(task.taskId, 'owner-a', [{ type: 'text', text: 'late' }]), InvalidTaskTransitionError);
    });

    t.it('wakes waiters on a change, at once when the version already moved, and on abort', async () => {
      const record = await create();
      const id = record.task.taskId;
      let woke = false;
      const waiting = store.waitForChange(id, 'owner-a', record.version).then(() => (woke = true));
      await store.get(id, 'owner-a'); // a round trip through the store, which changes nothing
      assert.equal(woke, false, 'nothing changed yet');
      await store.appendSegments(id, 'owner-a', [{ type: 'text', text: 'x' }]);
      await waiting;
      assert.equal(woke, true);
      await store.waitForChange(id, 'owner-a', record.version); // stale version: resolves at once
      const controller = new AbortController();
      const current = (await store.get(id, 'owner-a'))!.version;
      const aborted = store.waitForChange(id, 'owner-a', current, controller.signal);
      controller.abort();
      await aborted;
    });

    t.it('expires tasks after their ttl and says so', async () => {
      // Long enough that the first check comes before the expiry even on a busy machine (50 ms was not).
      const { task } = await create('owner-a', 500);
      assert.equal(await store.wasExpired(task.taskId), false);
      await waitFor(async () => (await store.get(task.taskId, 'owner-a')) === undefined, 'the task to expire');
      assert.equal(await store.wasExpired(task.taskId), true);
      assert.equal(await store.wasExpired('never-existed'), false);
      same(await store.list('owner-a', undefined, 10), { tasks: [] });
    });

    t.it('wakes waiters when a task expires', async () => {
      const record = await create('owner-a', 100);
      await store.waitForChange(record.task.taskId, 'owner-a', record.version);
    });
  });
}

/** Checks `condition` every 10 ms until it holds; gives up after 5 s (a bound, never a speed assertion). */
async function waitFor(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() >= deadline) throw new Error(`gave up after 5 s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Deep equality as JSON sees it: a property holding `undefined` equals a missing one. */
function same(actual: unknown, expected: unknown): void {
  assert.deepStrictEqual(asJson(actual), asJson(expected));
}

/** `actual` holds at least the properties of `expected`, with equal values. */
function matches(actual: unknown, expected: Record<string, unknown>): void {
  assert.ok(actual !== null && typeof actual === 'object', `expected an object, got ${String(actual)}`);
  const picked = Object.fromEntries(Object.keys(expected).map((k) => [k, (actual as Record<string, unknown>)[k]]));
  same(picked, expected);
}

function asJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
