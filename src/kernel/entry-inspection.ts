import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClassType } from '../metadata/records';

/**
 * The observer of the entry `mcpkit inspect` or `mcpkit call` is loading: an entry that builds and
 * serves its application itself (a single-file app calling `McpApplication.create(...)` and
 * `app.listen()`) must be listed, not started. It holds for the code the load runs and the work that
 * code starts (its `main()`, awaits included), and for nothing else: the CLI's own application, and
 * any other built in the same process, before or after, are built as usual.
 */
const loading = new AsyncLocalStorage<(module: ClassType) => void>();

/**
 * Runs `load` (a require of the user's entry) with `observe` told of each module class the entry's code
 * passes to `McpApplication.create`; those calls build nothing and never resolve, so nothing is served.
 */
export function observeApplicationCreation<T>(observe: (module: ClassType) => void, load: () => T): T {
  return loading.run(observe, load);
}

/** The observer of the entry being loaded, when `McpApplication.create` is called from its code. */
export function creationObserver(): ((module: ClassType) => void) | undefined {
  return loading.getStore();
}
