/**
 * A value, or a promise of it. The request path returns one of these from each step, so that a request
 * whose every step is synchronous (a tools/call of a plain method) is answered without a promise or a
 * microtask: with AsyncLocalStorage on (the server log's request fields), every promise made also runs
 * Node's async hooks, and a dozen of them were a third of a small stdio call's cost.
 */
export type MaybePromise<T> = T | Promise<T>;

/** True for a promise or any other thenable (what `await` would wait for). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    ((typeof value === 'object' || typeof value === 'function') &&
      value !== null &&
      typeof (value as { then?: unknown }).then === 'function')
  );
}
