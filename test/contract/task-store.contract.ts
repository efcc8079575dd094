import { InvalidTaskCursorError, InvalidTaskTransitionError, type TaskStore } from '../../src';
import { waitFor } from '../helpers/wait-for';

/**
 * The contract every TaskStore must meet. Call it from a spec with a factory for a fresh store:
 * `describeTaskStoreContract('MyStore', async () => new MyStore(...))`.
 */
export function describeTaskStoreContract(name: string, makeStore: () => Promise<TaskStore>, teardown?: () => Promise<void>): void {
  describe(`TaskStore contract: ${name}`, () => {
    let store: TaskStore;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
      await teardown?.();
    });

    const create = (owner = 'owner-a', ttl = 60_000) => store.create({ owner, ttl, pollInterval: 500 });

    it('creates working tasks with random ids, ISO timestamps, ttl and pollInterval', async () => {
      const a = await create();
      const b = await create();
      expect(a.task.taskId).not.toBe(b.task.taskId);
      expect(a.task.taskId.length).toBeGreaterThanOrEqual(20);
      expect(a.task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 500 });
      expect(new Date(a.task.createdAt).toISOString()).toBe(a.task.createdAt);
      expect(a.task.lastUpdatedAt).toBe(a.task.createdAt);
      expect(a).toMatchObject({ owner: 'owner-a', lastSeqNr: 0 });
      expect(await store.get(a.task.taskId, 'owner-a')).toEqual(a);
    });

    it('hides tasks from other owners', async () => {
      const a = await create('owner-a');
      expect(await store.get(a.task.taskId, 'owner-b')).toBeUndefined();
      expect(await store.setStatus(a.task.taskId, 'owner-b', 'input_required')).toBeUndefined();
      expect(await store.finish(a.task.taskId, 'owner-b', 'completed', { result: {} })).toBeUndefined();
      expect(await store.outcome(a.task.taskId, 'owner-b')).toBeUndefined();
      expect(await store.list('owner-b', undefined, 10)).toEqual({ tasks: [] });
      expect(await store.countActive('owner-b')).toBe(0);
      expect((await store.get(a.task.taskId, 'owner-a'))?.task.status).toBe('working');
    });

    it('enforces the lifecycle: working <-> input_required -> terminal, and terminal never changes', async () => {
      const { task } = await create();
      const id = task.taskId;
      expect((await store.setStatus(id, 'owner-a', 'input_required', 'need a file'))?.task).toMatchObject({ status: 'input_required', statusMessage: 'need a file' });
      expect((await store.setStatus(id, 'owner-a', 'working'))?.task.status).toBe('working');
      const done = await store.finish(id, 'owner-a', 'completed', { result: { content: [] } });
      expect(done?.task.status).toBe('completed');
      await expect(store.setStatus(id, 'owner-a', 'working')).rejects.toBeInstanceOf(InvalidTaskTransitionError);
      await expect(store.finish(id, 'owner-a', 'cancelled', { result: {} })).rejects.toBeInstanceOf(InvalidTaskTransitionError);
      await expect(store.finish(id, 'owner-a', 'failed', { result: {} })).rejects.toBeInstanceOf(InvalidTaskTransitionError);
      expect((await store.get(id, 'owner-a'))?.task.status).toBe('completed');
    });

    it('lets exactly one of two racing terminal transitions win', async () => {
      const { task } = await create();
      const results = await Promise.allSettled([
        store.finish(task.taskId, 'owner-a', 'cancelled', { result: { cancelled: true } }),
        store.finish(task.taskId, 'owner-a', 'completed', { result: { done: true } }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const winner = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ task: { status: string } }>).value.task.status;
      expect((await store.get(task.taskId, 'owner-a'))?.task.status).toBe(winner);
    });

    it('updates lastUpdatedAt and version on every change', async () => {
      const { task, version } = await create();
      await waitFor(() => Date.now() > Date.parse(task.createdAt), { what: 'the clock to pass createdAt' });
      const later = await store.setStatus(task.taskId, 'owner-a', 'input_required');
      expect(later!.version).toBeGreaterThan(version);
      expect(Date.parse(later!.task.lastUpdatedAt)).toBeGreaterThan(Date.parse(task.createdAt));
    });

    it('stores the outcome of a terminal task, a result or a JSON-RPC error, of any size', async () => {
      const a = await create();
      const b = await create();
      const big = 'x'.repeat(2 * 1024 * 1024);
      await store.finish(a.task.taskId, 'owner-a', 'completed', { result: { content: [{ type: 'text', text: big }] } });
      await store.finish(b.task.taskId, 'owner-a', 'failed', { error: { code: -32602, message: 'bad', data: { x: 1 } } }, 'bad');
      expect(await store.outcome(a.task.taskId, 'owner-a')).toEqual({ result: { content: [{ type: 'text', text: big }] } });
      expect(await store.outcome(b.task.taskId, 'owner-a')).toEqual({ error: { code: -32602, message: 'bad', data: { x: 1 } } });
      expect((await store.get(b.task.taskId, 'owner-a'))?.task).toMatchObject({ status: 'failed', statusMessage: 'bad' });
    });

    it("lists an owner's tasks oldest first with opaque cursors, and refuses foreign cursors", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await create()).task.taskId);
      await create('owner-b');
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.list('owner-a', cursor, 2);
        seen.push(...page.tasks.map((t) => t.task.taskId));
        cursor = page.nextCursor;
        pages++;
      } while (cursor);
      expect(seen).toEqual(ids);
      expect(pages).toBe(3);
      await expect(store.list('owner-a', 'not a cursor!', 2)).rejects.toBeInstanceOf(InvalidTaskCursorError);
      // A cursor whose text reads like a connection failure is still just a bad cursor.
      await expect(store.list('owner-a', 'connect', 2)).rejects.toBeInstanceOf(InvalidTaskCursorError);
      await expect(store.list('owner-a', 'ECONNREFUSED', 2)).rejects.toBeInstanceOf(InvalidTaskCursorError);
    });

    it("counts the owner's live tasks", async () => {
      const a = await create();
      await create();
      await store.finish(a.task.taskId, 'owner-a', 'completed', { result: {} });
      expect(await store.countActive('owner-a')).toBe(1);
    });

    it('appends segments numbered from 1 and reads them after a seqNr', async () => {
      const { task } = await create();
      const first = await store.appendSegments(task.taskId, 'owner-a', [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]);
      const second = await store.appendSegments(task.taskId, 'owner-a', [{ type: 'text', text: 'c' }]);
      expect(first.map((s) => s.seqNr)).toEqual([1, 2]);
      expect(second).toEqual([{ type: 'text', text: 'c', seqNr: 3 }]);
      expect((await store.get(task.taskId, 'owner-a'))?.lastSeqNr).toBe(3);
      expect((await store.segments(task.taskId, 'owner-a', 1)).map((s) => s.seqNr)).toEqual([2, 3]);
      expect(await store.segments(task.taskId, 'owner-a', 3)).toEqual([]);
      expect(await store.segments(task.taskId, 'owner-b', 0)).toEqual([]);
      await store.finish(task.taskId, 'owner-a', 'completed', { result: {} });
      await expect(store.appendSegments(task.taskId, 'owner-a', [{ type: 'text', text: 'late' }])).rejects.toBeInstanceOf(InvalidTaskTransitionError);
    });

    it('wakes waiters on a change, at once when the version already moved, and on abort', async () => {
      const record = await create();
      const id = record.task.taskId;
      let woke = false;
      const waiting = store.waitForChange(id, 'owner-a', record.version).then(() => (woke = true));
      await store.get(id, 'owner-a'); // a round trip through the store, which changes nothing
      expect(woke).toBe(false);
      await store.appendSegments(id, 'owner-a', [{ type: 'text', text: 'x' }]);
      await waiting;
      expect(woke).toBe(true);
      await store.waitForChange(id, 'owner-a', record.version); // stale version: resolves at once
      const controller = new AbortController();
      const current = (await store.get(id, 'owner-a'))!.version;
      const aborted = store.waitForChange(id, 'owner-a', current, controller.signal);
      controller.abort();
      await aborted;
    });

    it('expires tasks after their ttl and says so', async () => {
      const { task } = await create('owner-a', 50);
      expect(await store.wasExpired(task.taskId)).toBe(false);
      await waitFor(async () => (await store.get(task.taskId, 'owner-a')) === undefined, { what: 'the task to expire' });
      expect(await store.wasExpired(task.taskId)).toBe(true);
      expect(await store.wasExpired('never-existed')).toBe(false);
      expect(await store.list('owner-a', undefined, 10)).toEqual({ tasks: [] });
    });

    it('wakes waiters when a task expires', async () => {
      const record = await create('owner-a', 100);
      await store.waitForChange(record.task.taskId, 'owner-a', record.version);
    });
  });
}
