import { faultError, PROCESS_FAULTS, type ProcessFault } from './process-faults';

/**
 * Fails any test during which the process saw an unhandled rejection or an uncaught exception
 * (recorded by `process-faults.environment.ts`), with the rejection's message: a floating promise in
 * src or in a test is a bug even when the assertions pass.
 */
const faults = (globalThis as Record<string, unknown>)[PROCESS_FAULTS] as ProcessFault[] | undefined;
if (!faults) throw new Error(`no-unhandled-rejections.ts needs testEnvironment '<rootDir>/test/setup/process-faults.environment.ts'`);

// Captured before any test installs fake timers, so the flush below never waits on a mocked clock.
const realSetImmediate = setImmediate;

/** Node reports a rejection nobody handled once the microtask queue drains: let it. */
const flush = () => new Promise<void>((resolve) => realSetImmediate(resolve));

beforeEach(async () => {
  await flush();
  if (faults.length > 0) throw faultError(faults.splice(0), 'before this test (in a hook or between tests)');
});

afterEach(async () => {
  await flush();
  if (faults.length > 0) throw faultError(faults.splice(0), 'during this test');
});

afterAll(async () => {
  await flush();
  if (faults.length > 0) throw faultError(faults.splice(0), 'in an afterAll hook');
});
