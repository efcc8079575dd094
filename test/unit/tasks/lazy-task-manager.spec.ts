import { InMemoryTaskStore } from '../../../src/stores';
import { LazyTaskManager } from '../../../src/tasks/lazy-task-manager';
import type { TaskNotifier } from '../../../src/tasks/modern-tasks';
import { resolveTaskOptions } from '../../../src/tasks/task-options';

/** A store shared between instances: it keeps leases and reaps, so the manager is built at once. */
class SharedStore extends InMemoryTaskStore {
  async renewLeases(): Promise<void> {}
  async reapAbandoned(): Promise<never[]> {
    return [];
  }
}

describe('LazyTaskManager', () => {
  const notifier: TaskNotifier = () => undefined;

  it('hands a notifier set after construction to a manager a shared store already built', async () => {
    const lazy = new LazyTaskManager(new SharedStore(), resolveTaskOptions({}), () => undefined, 1_000);
    lazy.modernNotifier = notifier;
    expect(lazy.get().modern.notifier).toBe(notifier);
    await lazy.close();
  });

  it('makes a store given as a function on first use, once, and closes only a store it made', async () => {
    const made: InMemoryTaskStore[] = [];
    const make = () => {
      const store = new InMemoryTaskStore();
      made.push(store);
      return store;
    };
    const unused = new LazyTaskManager(make, resolveTaskOptions({}), () => undefined, 1_000);
    await unused.close();
    await unused.closeStore();
    expect(made).toHaveLength(0);

    const lazy = new LazyTaskManager(make, resolveTaskOptions({}), () => undefined, 1_000);
    expect(made).toHaveLength(0);
    const store = lazy.store;
    expect(lazy.store).toBe(store);
    expect(lazy.get().store).toBe(store);
    expect(made).toEqual([store]);
    const close = jest.spyOn(store, 'close');
    await lazy.close();
    await lazy.closeStore();
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('hands it to a manager built later, on first use', async () => {
    const lazy = new LazyTaskManager(new InMemoryTaskStore(), resolveTaskOptions({}), () => undefined, 1_000);
    lazy.modernNotifier = notifier;
    expect(lazy.get().modern.notifier).toBe(notifier);
    await lazy.close();
  });
});
