import { randomBytes } from 'node:crypto';
import type { InputRequest, PerRequestTaskInputs } from './per-request-task-inputs';
import type { TaskBus, TaskBusMessage } from './task-bus';

/** How long an instance waits for the one running a task to tell its input requests, in ms. */
const ASK_TIMEOUT_MS = 2_000;

/**
 * Carries a 2026-07-28 task's input across the instances of a deployment: the instance running the
 * task (whose handler waits on its PerRequestTaskInputs, in memory) answers another instance's question
 * for the open input requests, and takes the answers a tasks/update brought there. Over the task bus
 * (the session backplane's pub/sub when scaling out).
 */
export class PerRequestTaskRelay {
  constructor(
    private readonly bus: TaskBus,
    private readonly logError: (message: string, error?: unknown) => void,
  ) {}

  /** Serves a task running here; resolves once listening, with the function that stops it. */
  serve(taskId: string, inputs: PerRequestTaskInputs): Promise<() => Promise<void>> {
    const bus = this.bus;
    return bus.subscribe(taskId, (message) => {
      if (message.kind === 'modern-ask') {
        const reply: TaskBusMessage = {
          kind: 'modern-inputs',
          from: bus.instanceId,
          to: message.from,
          ask: message.ask,
          requests: inputs.requests() ?? {},
        };
        bus.publish(taskId, reply).catch((error) => this.logError(`Could not tell the input requests of task ${taskId}`, error));
      } else if (message.kind === 'modern-update' && message.from !== bus.instanceId) {
        try {
          inputs.answer(message.responses);
        } catch (error) {
          // The sending instance checked the answers against the same requests: a late mismatch is only logged.
          this.logError(`An update of task ${taskId} from another instance did not fit its requests`, error);
        }
      }
    });
  }

  /**
   * The open input requests of a task running on another instance; undefined when no instance answers
   * in time (the task is not running anywhere, or the bus is down).
   */
  async requests(taskId: string): Promise<Record<string, InputRequest> | undefined> {
    const bus = this.bus;
    const ask = randomBytes(8).toString('hex');
    let settle: (value: Record<string, InputRequest> | undefined) => void = () => undefined;
    const answered = new Promise<Record<string, InputRequest> | undefined>((resolve) => (settle = resolve));
    const stop = await bus.subscribe(taskId, (message) => {
      if (message.kind === 'modern-inputs' && message.to === bus.instanceId && message.ask === ask) settle(message.requests);
    });
    const timer = setTimeout(() => settle(undefined), ASK_TIMEOUT_MS);
    try {
      await bus.publish(taskId, { kind: 'modern-ask', from: bus.instanceId, ask });
      return await answered;
    } finally {
      clearTimeout(timer);
      await stop().catch((error) => this.logError(`Could not stop listening to task ${taskId}`, error));
    }
  }

  /** Hands the answers of a tasks/update to the instance running the task. */
  update(taskId: string, responses: Record<string, unknown>): Promise<void> {
    return this.bus.publish(taskId, { kind: 'modern-update', from: this.bus.instanceId, responses });
  }
}
