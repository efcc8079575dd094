import { InMemoryTaskStore, TaskStoreFullError } from '../../../src/stores';
import { describeTaskStoreContract } from '../../../src/testing';

describeTaskStoreContract(
  { describe, it, beforeEach, afterEach },
  'InMemoryTaskStore',
  async () => new InMemoryTaskStore({ sweepIntervalMs: 25 }),
);

describe('InMemoryTaskStore bounds', () => {
  it('evicts terminal tasks first when full, and refuses when every task is live', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 3 });
    const a = await store.create({ owner: 'o', ttl: 60_000 });
    await store.create({ owner: 'o', ttl: 60_000 });
    await store.create({ owner: 'o', ttl: 60_000 });
    await store.finish(a.task.taskId, 'o', 'completed', { result: {} });
    await store.create({ owner: 'o', ttl: 60_000 });
    expect(await store.get(a.task.taskId, 'o')).toBeUndefined();
    await expect(store.create({ owner: 'o', ttl: 60_000 })).rejects.toBeInstanceOf(TaskStoreFullError);
    await store.close();
  });
});
