import { inject, injectable } from 'tsyringe';
import { McpTestClient } from '../../../src/testing';
import { InMemoryTaskStore, type CreateTaskInput, type TaskStore } from '../../../src/stores';
import { McpApplication, McpModule, TASK_STORE } from '../../../src';
import { TaskTools } from '../../helpers/task-tools';
import { waitFor } from '../../helpers/wait-for';

const STORE_NAME = Symbol('store-name');

/** A user's store: the in-memory one, counting creations, with a dependency from the container. */
@injectable()
class CountingStore extends InMemoryTaskStore {
  created = 0;
  constructor(@inject(STORE_NAME) readonly label: string) {
    super();
  }
  override async create(input: CreateTaskInput) {
    this.created++;
    return super.create(input);
  }
}

@injectable()
class StoreUser {
  constructor(@inject(TASK_STORE) readonly store: TaskStore) {}
}

async function runOneTask(app: McpApplication): Promise<void> {
  const client = await McpTestClient.connect(app.connectInMemory());
  const created = (await client.request('tools/call', { name: 'quick', arguments: {}, task: {} })) as { task: { taskId: string } };
  await client.request('tasks/result', { taskId: created.task.taskId });
}

describe('injecting a TaskStore', () => {
  it('takes a class, resolved through the container with its dependencies', async () => {
    @McpModule({ providers: [TaskTools, StoreUser, { provide: STORE_NAME, useValue: 'mine' }], taskStore: CountingStore })
    class M {}
    const app = await McpApplication.create(M);
    await runOneTask(app);
    const store = app.get<CountingStore>(TASK_STORE);
    expect(store).toBeInstanceOf(CountingStore);
    expect(store.label).toBe('mine');
    expect(store.created).toBe(1);
    expect(app.get(StoreUser).store).toBe(store);
    await app.close();
  });

  it('takes an instance, { useValue }, or { useFactory }', async () => {
    const instance = new CountingStore('value');
    const value = new CountingStore('useValue');
    for (const [option, expected] of [
      [instance, instance],
      [{ useValue: value }, value],
    ] as const) {
      @McpModule({ providers: [TaskTools] })
      class M {}
      const app = await McpApplication.create(M, { taskStore: option });
      await runOneTask(app);
      expect(app.get(TASK_STORE)).toBe(expected);
      expect(expected.created).toBe(1);
      await app.close();
    }
    @McpModule({ providers: [TaskTools, { provide: STORE_NAME, useValue: 'factory' }] })
    class F {}
    const app = await McpApplication.create(F, { taskStore: { useFactory: (resolve) => new CountingStore(resolve<string>(STORE_NAME)) } });
    await runOneTask(app);
    expect(app.get<CountingStore>(TASK_STORE).label).toBe('factory');
    await app.close();
  });

  it('uses a fresh in-memory store per application by default', async () => {
    @McpModule({ providers: [TaskTools] })
    class M {}
    const a = await McpApplication.create(M);
    const b = await McpApplication.create(M);
    expect(a.get(TASK_STORE)).toBeInstanceOf(InMemoryTaskStore);
    expect(a.get(TASK_STORE)).not.toBe(b.get(TASK_STORE));
    await Promise.all([a.close(), b.close()]);
  });

  it('makes one default store per application: the store tasks run in, the one under TASK_STORE', async () => {
    const create = jest.spyOn(InMemoryTaskStore.prototype, 'create');
    const close = jest.spyOn(InMemoryTaskStore.prototype, 'close');
    try {
      @McpModule({ providers: [TaskTools] })
      class M {}
      const app = await McpApplication.create(M);
      await runOneTask(app);
      const store = app.get(TASK_STORE);
      expect(create.mock.contexts).toEqual([store]);
      await app.close();
      expect(close.mock.contexts).toEqual([store]);

      // Injected at start-up (providers are resolved by create): the same one store, closed with the application.
      @McpModule({ providers: [TaskTools, StoreUser] })
      class Injecting {}
      const injecting = await McpApplication.create(Injecting);
      const injected = injecting.get(StoreUser).store;
      await runOneTask(injecting);
      expect(create.mock.contexts[1]).toBe(injected);
      expect(injecting.get(TASK_STORE)).toBe(injected);
      await injecting.close();
      expect(close.mock.contexts[1]).toBe(injected);
    } finally {
      create.mockRestore();
      close.mockRestore();
    }
  });

  it('over a store shared between instances, fails the tasks of a stopped instance before serving any request', async () => {
    /** A shared store (it keeps leases): it records each time it is asked to reap abandoned tasks. */
    class SharedStore extends InMemoryTaskStore {
      reaped: string[] = [];
      async renewLeases(): Promise<void> {}
      async reapAbandoned(statusMessage: string) {
        this.reaped.push(statusMessage);
        return [];
      }
    }
    const store = new SharedStore();
    @McpModule({ providers: [TaskTools] })
    class M {}
    const app = await McpApplication.create(M, { taskStore: store, tasks: { leaseMs: 200 } });
    try {
      await waitFor(() => store.reaped.length > 0, { what: 'the application to reap abandoned tasks' });
      expect(store.reaped[0]).toBe('The server running this task stopped responding');
    } finally {
      await app.close();
    }
  });
});
