import { tasksFeature } from '../../../src/tasks/tasks.feature';
import { LazyTaskManager } from '../../../src/tasks/lazy-task-manager';
import { InMemoryTaskStore } from '../../../src/tasks/in-memory.task-store';
import { resolveTaskOptions } from '../../../src/tasks/task-options';
import type { ToolInvoker } from '../../../src/protocol/tool-invoker';

/** The tasks feature serves its methods without building the TaskManager until one is called. */
describe('tasks feature over a lazy TaskManager', () => {
  const lazy = () => new LazyTaskManager(new InMemoryTaskStore(), resolveTaskOptions(undefined), () => undefined, 1_000);

  it('names the same 2026-07-28 methods as the manager it builds on first use', () => {
    const tasks = lazy();
    const feature = tasksFeature(tasks, {} as ToolInvoker, 50);
    const named = Object.keys(feature.modernMethods ?? {}).sort();
    expect(named).toEqual(Object.keys(tasks.get().modern.handlers()).sort());
  });

  it('builds the manager on first use, at once over a store shared between instances (leases are kept from the start)', async () => {
    const built = (tasks: LazyTaskManager) => (tasks as unknown as { built?: unknown }).built !== undefined;
    const local = lazy();
    tasksFeature(local, {} as ToolInvoker, 50);
    expect(built(local)).toBe(false);
    expect(local.get()).toBe(local.get());
    expect(built(local)).toBe(true);

    const shared = Object.assign(new InMemoryTaskStore(), { renewLeases: async () => undefined, reapAbandoned: async () => [] });
    const distributed = new LazyTaskManager(shared, resolveTaskOptions(undefined), () => undefined, 1_000);
    expect(built(distributed)).toBe(true);
    await Promise.all([local.close(), distributed.close()]);
  });
});
