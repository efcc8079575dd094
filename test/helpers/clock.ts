/**
 * Fakes `Date` alone, so a test can move the wall clock (leases, timestamps) without waiting, while
 * timers, sockets and Redis clients keep running in real time. Call the returned `restore` in a
 * `finally` or afterEach.
 */
export function fakeWallClock(): { advance(ms: number): void; restore(): void } {
  jest.useFakeTimers({
    now: Date.now(),
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
  return {
    advance: (ms) => jest.setSystemTime(Date.now() + ms),
    restore: () => jest.useRealTimers(),
  };
}
