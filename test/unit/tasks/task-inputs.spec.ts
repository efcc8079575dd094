import type { TaskBus, TaskBusMessage } from '../../../src/tasks/task-bus';
import { TaskInputs } from '../../../src/tasks/task-inputs';
import type { Outbound } from '../../../src/protocol/peer';
import { waitFor } from '../../helpers/wait-for';

/** The task channels of a deployment in one process: pub/sub delivers to whoever listens when it publishes. */
class Channels {
  private readonly listeners = new Map<string, Set<{ instanceId: string; listener: (m: TaskBusMessage) => void }>>();
  /** Every message delivered, and the instance it was delivered to. */
  readonly delivered: { to: string; message: TaskBusMessage }[] = [];
  bus(instanceId: string): TaskBus {
    return {
      instanceId,
      publish: async (taskId, message) => {
        for (const { instanceId: to, listener } of [...(this.listeners.get(taskId) ?? [])])
          queueMicrotask(() => {
            listener(message);
            this.delivered.push({ to, message });
          });
      },
      subscribe: async (taskId, listener) => {
        let set = this.listeners.get(taskId);
        if (!set) this.listeners.set(taskId, (set = new Set()));
        const entry = { instanceId, listener };
        set.add(entry);
        return async () => void set.delete(entry);
      },
    };
  }
}

function outbound(reachable: boolean, answer: (method: string) => unknown = () => undefined): Outbound & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    reachable,
    notify: async () => undefined,
    sendIntermediateResult: async () => undefined,
    request: async (method) => {
      asked.push(method);
      return answer(method);
    },
  };
}

const quiet = () => undefined;

/** Requests of a task to its client, when the tasks/result carrying them waits on another instance. */
describe('TaskInputs across instances', () => {
  it('carries a request on a tasks/result that began waiting elsewhere before the task listened to its channel', async () => {
    const channels = new Channels();
    const running = new TaskInputs(60_000, channels.bus('a'), quiet);
    const waiting = new TaskInputs(60_000, channels.bus('b'), quiet);
    // The tasks/result reaches instance b first: its "waiting" is published while nobody runs the task yet.
    const client = outbound(true, () => ({ action: 'accept', content: { confirm: true } }));
    await waiting.wait('t1', { id: 7, outbound: client }, false);
    // Then the task starts on instance a and listens; its handler asks the client (not reachable from a).
    await running.track('t1');
    // a asks who waits; b, which announced itself before a listened, answers that it does.
    await waitFor(() => channels.delivered.some(({ to, message }) => to === 'a' && message.kind === 'waiting' && message.from === 'b'), {
      what: "b's answer to a's probe",
    });
    const answer = running.request('t1', outbound(false), 'elicitation/create', { message: 'Confirm?' }, { timeoutMs: 1_000 });
    await expect(answer).resolves.toEqual({ action: 'accept', content: { confirm: true } });
    expect(client.asked).toEqual(['elicitation/create']);
  });
});
