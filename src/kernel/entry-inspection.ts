import type { ClassType } from '../metadata/records';

/**
 * Set by `mcpkit inspect` and `mcpkit call` while they load a user's entry: an entry that builds and
 * serves its application itself (a single-file app calling `McpApplication.create(...)` and
 * `app.listen()`) must be listed, not started. `McpApplication.create` then reports the module class
 * here and never resolves, so nothing is served; the CLI builds that module itself.
 */
let observer: ((module: ClassType) => void) | undefined;

/** From now on, `McpApplication.create` reports its module to `observe` and serves nothing (for the CLI). */
export function observeApplicationCreation(observe: (module: ClassType) => void): void {
  observer = observer === undefined ? observe : observer;
}

/** The observer, when the CLI set one: `McpApplication.create` reports to it instead of building. */
export function creationObserver(): ((module: ClassType) => void) | undefined {
  return observer;
}

/** Runs `create` (a call to `McpApplication.create`) as the CLI's own: built, not reported. */
export function createUnobserved<T>(create: () => T): T {
  const saved = observer;
  observer = undefined;
  try {
    return create();
  } finally {
    observer = saved;
  }
}
