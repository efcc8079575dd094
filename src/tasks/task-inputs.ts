import type { RequestId } from '../mcp/json-rpc';
import { ErrorCode } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import type { Outbound, OutboundRequestOptions } from '../protocol/peer';
import type { TaskBus, TaskBusMessage } from './task-bus';

/** A tasks/result request waiting on a task: the task's requests to the client travel on its stream. */
export interface TaskWaiter {
  readonly id: RequestId;
  readonly outbound: Outbound;
}

/** A request from a task's handler to the client that no stream has carried yet, or that went to another instance. */
interface Held {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly deadline: number;
  readonly signal?: AbortSignal;
  // Properties, not methods: deliver() hands them on unbound.
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

type Stop = () => Promise<void>;

/**
 * Routes the requests a task's handler makes to the client. They go on a tasks/result that waits
 * on the task (in this process, or on another instance through the TaskBus); with none, on the
 * client's own connection when that reaches it; otherwise they are held until a tasks/result
 * arrives. Routing is by the waiting request's own outbound port, never by a bare request id.
 */
export class TaskInputs {
  private readonly waiters = new Map<string, TaskWaiter[]>();
  private readonly held = new Map<string, Set<Held>>();
  private readonly remoteWaiters = new Map<string, string[]>();
  private readonly sentAway = new Map<string, Held>();
  private nextKey = 0;

  constructor(
    private readonly defaultTimeoutMs: number,
    private readonly bus: TaskBus | undefined,
    private readonly logError: (message: string, error?: unknown) => void,
  ) {}

  /** The handler of task `taskId`, started from a request whose client is `origin`, asks the client. */
  request(
    taskId: string,
    origin: Outbound,
    method: string,
    params: Record<string, unknown>,
    options: OutboundRequestOptions,
  ): Promise<unknown> {
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const waiter = this.waiters.get(taskId)?.at(-1);
    if (waiter) return waiter.outbound.request(method, params, { timeoutMs, signal: options.signal, relatedRequestId: waiter.id });
    if (origin.reachable && !this.remoteWaiters.get(taskId)?.length)
      return origin.request(method, params, { timeoutMs, signal: options.signal });
    return new Promise<unknown>((resolve, reject) => {
      const set = this.held.get(taskId) ?? new Set<Held>();
      this.held.set(taskId, set);
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        set.delete(held);
        if (set.size === 0 && this.held.get(taskId) === set) this.held.delete(taskId);
      };
      const held: Held = {
        method,
        params,
        deadline: Date.now() + timeoutMs,
        signal: options.signal,
        resolve: (value) => (done(), resolve(value)),
        reject: (error) => (done(), reject(error)),
      };
      const onAbort = () =>
        held.reject(
          options.signal?.reason instanceof McpError
            ? options.signal.reason
            : new McpError(ErrorCode.InternalError, 'Request to the client was cancelled'),
        );
      const timer = setTimeout(
        () =>
          held.reject(
            new McpError(-32001, `Request to the client timed out after ${timeoutMs} ms (no tasks/result carried it)`, {
              method,
              timeoutMs,
            }),
          ),
        timeoutMs,
      );
      timer.unref();
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      set.add(held);
      const remote = this.remoteWaiters.get(taskId)?.at(-1);
      if (remote) this.sendAway(taskId, held, remote);
    });
  }

  /**
   * A tasks/result waits on a task. When the task runs here, it carries the task's requests (those
   * held first); when it runs elsewhere, the bus brings them. Returns the function that ends the wait.
   */
  async wait(taskId: string, waiter: TaskWaiter, runsHere: boolean): Promise<Stop> {
    if (runsHere || !this.bus) {
      const list = this.waiters.get(taskId) ?? [];
      list.push(waiter);
      this.waiters.set(taskId, list);
      for (const held of [...(this.held.get(taskId) ?? [])]) this.deliver(held, waiter);
      return async () => {
        const left = (this.waiters.get(taskId) ?? []).filter((w) => w !== waiter);
        if (left.length > 0) this.waiters.set(taskId, left);
        else this.waiters.delete(taskId);
      };
    }
    const bus = this.bus;
    const stop = await bus.subscribe(taskId, (message) => {
      if (message.kind === 'probe') {
        void bus
          .publish(taskId, { kind: 'waiting', from: bus.instanceId })
          .catch((error) => this.logError(`Could not tell that a wait on task ${taskId} goes on`, error));
        return;
      }
      if (message.kind !== 'input' || message.to !== bus.instanceId) return;
      waiter.outbound
        .request(message.method, message.params, { relatedRequestId: waiter.id, timeoutMs: message.timeoutMs })
        .then(
          (result) => ({ result }),
          (error: unknown) => ({ error: toErrorObject(error) }),
        )
        .then((answer) => bus.publish(taskId, { kind: 'answer', from: bus.instanceId, to: message.from, key: message.key, ...answer }))
        .catch((error) => this.logError(`Could not hand an answer for task ${taskId} back to its instance`, error));
    });
    await bus.publish(taskId, { kind: 'waiting', from: bus.instanceId });
    return async () => {
      await bus
        .publish(taskId, { kind: 'left', from: bus.instanceId })
        .catch((error) => this.logError(`Could not tell that a wait on task ${taskId} ended`, error));
      await stop();
    };
  }

  /** While a task runs here, hears the instances whose tasks/result waits on it. */
  async track(taskId: string): Promise<Stop> {
    const bus = this.bus;
    if (!bus) return async () => undefined;
    const stop = await bus.subscribe(taskId, (message) => this.onBusMessage(taskId, message, bus.instanceId));
    // Each side announces itself once it listens, so the later of the two is heard: a tasks/result that
    // arrived elsewhere before the task listened (under load, its `waiting` came first) answers this probe.
    await bus
      .publish(taskId, { kind: 'probe', from: bus.instanceId })
      .catch((error) => this.logError(`Could not ask who waits on task ${taskId}`, error));
    return async () => {
      this.remoteWaiters.delete(taskId);
      await stop();
    };
  }

  private onBusMessage(taskId: string, message: TaskBusMessage, self: string): void {
    if (message.from === self) return;
    const list = this.remoteWaiters.get(taskId) ?? [];
    switch (message.kind) {
      case 'waiting':
        this.remoteWaiters.set(taskId, [...list.filter((i) => i !== message.from), message.from]);
        for (const held of [...(this.held.get(taskId) ?? [])]) this.sendAway(taskId, held, message.from);
        break;
      case 'left':
        this.remoteWaiters.set(
          taskId,
          list.filter((i) => i !== message.from),
        );
        break;
      case 'answer': {
        if (message.to !== self) return;
        const held = this.sentAway.get(message.key);
        this.sentAway.delete(message.key);
        if (!held) return;
        if (message.error) held.reject(new McpError(message.error.code, message.error.message, message.error.data));
        else held.resolve(message.result);
        break;
      }
      default:
        break;
    }
  }

  private deliver(held: Held, waiter: TaskWaiter): void {
    const timeoutMs = Math.max(1, held.deadline - Date.now());
    // Taken out of the held set first, so a second tasks/result does not send it again.
    const { resolve, reject } = held;
    this.untrack(held);
    waiter.outbound
      .request(held.method, held.params, { relatedRequestId: waiter.id, timeoutMs, signal: held.signal })
      .then(resolve, reject);
  }

  private sendAway(taskId: string, held: Held, to: string): void {
    const bus = this.bus!;
    const key = `${bus.instanceId}:${++this.nextKey}`;
    this.untrack(held);
    this.sentAway.set(key, held);
    const timeoutMs = Math.max(1, held.deadline - Date.now());
    bus
      .publish(taskId, { kind: 'input', from: bus.instanceId, to, key, method: held.method, params: held.params, timeoutMs })
      .catch((error: unknown) => {
        this.sentAway.delete(key);
        held.reject(error instanceof Error ? error : new Error(String(error)));
      });
  }

  private untrack(held: Held): void {
    for (const [taskId, set] of this.held) {
      if (set.delete(held) && set.size === 0) this.held.delete(taskId);
    }
  }
}

function toErrorObject(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof McpError)
    return error.data === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  return { code: ErrorCode.InternalError, message: 'The client request failed' };
}
