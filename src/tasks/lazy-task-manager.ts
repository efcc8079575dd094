import type { TaskBus } from './task-bus';
import type { TaskManager } from './task-manager';
import type { ResolvedTaskOptions } from './task-options';
import type { TaskStore } from './task-store';
import type { TaskNotifier } from './modern-tasks';

/**
 * An application's TaskManager, built on first use. The task machinery (both eras' task runners,
 * requests to the client, leases: about fifteen modules) is loaded once a request runs a tool as a
 * task or asks about tasks, which most servers never see: a stdio server starts sooner without it.
 * With a store shared between instances it is built at once, since the leases of this instance's
 * tasks are kept, and the tasks of a stopped instance reaped, from the start.
 *
 * The store may be given as a function, called on first use: the default in-memory store (and its
 * module, its sweep timer) is then made only by a server that uses tasks or asks for its store.
 */
export class LazyTaskManager {
  private built?: TaskManager;
  private notifier?: TaskNotifier;
  private made?: TaskStore;
  private makeStore?: () => TaskStore;

  constructor(
    store: TaskStore | (() => TaskStore),
    private readonly options: ResolvedTaskOptions,
    private readonly logError: (message: string, error?: unknown) => void,
    private readonly clientRequestTimeoutMs: number,
    private readonly bus?: TaskBus,
  ) {
    if (typeof store === 'function') this.makeStore = store;
    else {
      this.made = store;
      if (store.renewLeases && store.reapAbandoned) this.get();
    }
  }

  /** The task store, made now if it was given as a function and not made yet. */
  get store(): TaskStore {
    if (!this.made) {
      this.made = this.makeStore!();
      this.makeStore = undefined;
    }
    return this.made;
  }

  /**
   * Told of each status change of a 2026-07-28 task (see ModernTasks.notifier). Set after construction,
   * when a manager may already be built (a shared store builds it at once): it is handed on then too.
   */
  set modernNotifier(notifier: TaskNotifier | undefined) {
    this.notifier = notifier;
    if (this.built) this.built.modern.notifier = notifier;
  }

  get modernNotifier(): TaskNotifier | undefined {
    return this.notifier;
  }

  get(): TaskManager {
    if (this.built) return this.built;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: see the class
    const { TaskManager } = require('./task-manager') as typeof import('./task-manager');
    this.built = new TaskManager(this.store, this.options, this.logError, this.clientRequestTimeoutMs, this.bus);
    this.built.modern.notifier = this.notifier;
    return this.built;
  }

  /** Stops what the manager runs (lease timers), when it was built. */
  async close(): Promise<void> {
    await this.built?.close();
  }

  /** Closes the store, when it was made (a store never made holds nothing to close). */
  async closeStore(): Promise<void> {
    await this.made?.close();
  }
}
