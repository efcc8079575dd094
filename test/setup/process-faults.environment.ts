import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import type { Circus } from '@jest/types';
import { TestEnvironment } from 'jest-environment-node';
import { faultError, PROCESS_FAULTS, type ProcessFault } from './process-faults';

/**
 * The node environment, plus a record of every unhandled rejection and uncaught exception of the real
 * process. A setup file cannot do this itself: the `process` a test file sees is a copy with its own
 * listeners, which Node never calls. The record is handed to `no-unhandled-rejections.ts`, which fails
 * the test during which a fault happened; a fault after the last hook fails the whole file here.
 */
export default class ProcessFaultsEnvironment extends TestEnvironment {
  private readonly faults: ProcessFault[] = [];
  private readonly onRejection = (reason: unknown) => this.faults.push({ kind: 'unhandled rejection', reason });
  private readonly onException = (reason: unknown) => this.faults.push({ kind: 'uncaught exception', reason });

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    this.global[PROCESS_FAULTS] = this.faults;
  }

  override async setup(): Promise<void> {
    await super.setup();
    this.listen();
  }

  override async teardown(): Promise<void> {
    process.off('unhandledRejection', this.onRejection);
    process.off('uncaughtException', this.onException);
    await super.teardown();
  }

  async handleTestEvent(event: Circus.Event, state: Circus.State): Promise<void> {
    if (event.name === 'run_start') {
      // jest-circus has just put its own handlers in place, which pin a fault on whichever test is
      // running when Node gets round to reporting it (often the next one). Ours replace them until
      // teardown; the setup file flushes and reports at the end of the test that caused the fault.
      process.removeAllListeners('unhandledRejection');
      process.removeAllListeners('uncaughtException');
      this.listen();
    } else if (event.name === 'run_finish') {
      // A promise that failed in the last afterAll is reported once the microtasks drain: wait for it,
      // while our listener is still there to take it (without one, Node would end the worker).
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.faults.length > 0) state.unhandledErrors.push(faultError(this.faults.splice(0), 'after the last test'));
    }
  }

  private listen(): void {
    if (!process.listeners('unhandledRejection').includes(this.onRejection)) process.on('unhandledRejection', this.onRejection);
    if (!process.listeners('uncaughtException').includes(this.onException)) process.on('uncaughtException', this.onException);
  }
}
