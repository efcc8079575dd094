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

  it('hands it to a manager built later, on first use', async () => {
    const lazy = new LazyTaskManager(new InMemoryTaskStore(), resolveTaskOptions({}), () => undefined, 1_000);
    lazy.modernNotifier = notifier;
    expect(lazy.get().modern.notifier).toBe(notifier);
    await lazy.close();
  });
});
