import { setTimeout as delay } from 'node:timers/promises';

export interface WaitForOptions {
  /** Give up after this long: a bound on a wait, never an assertion about speed. Default 5 s. */
  timeoutMs?: number;
  /** How often the condition is checked. Default 10 ms. */
  intervalMs?: number;
  /** What was awaited, for the error when it never came. */
  what?: string;
}

/**
 * Resolves with the condition's first truthy value, checking it until `timeoutMs` has passed, then
 * rejects saying what never happened. For conditions no event announces (a counter reaching zero, a
 * line in a child's stderr); when there is an event or a promise, await that instead.
 */
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitForOptions = {}): Promise<NonNullable<T>> {
  const { timeoutMs = 5_000, intervalMs = 10, what = condition.toString() } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
      lastError = undefined;
    } catch (error) {
      lastError = error; // an assertion that does not hold yet
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      throw new Error(`waitFor: gave up after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await delay(intervalMs);
  }
}

/** A promise with its resolve and reject handed out: a gate a test opens, or a signal a fixture gives. */
export interface Deferred<T = void> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
