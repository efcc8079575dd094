import { randomBytes } from 'node:crypto';
import { TASKS_EXTENSION } from '../mcp/eras';
import { declaresExtension } from '../mcp/extensions';
import { ErrorCode } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import { missingCapability } from '../protocol/per-request/envelope';
import type { Outbound } from '../protocol/peer';
import type { Call } from '../protocol/pipeline/call';
import type { MethodHandler, RequestScope, TaskBinding } from '../protocol/request-scope';
import type { ToolDescriptor } from '../registry/descriptors';
import { checkAnswers, type InputRequest, PerRequestTaskInputs, withoutTaskMeta } from './per-request-task-inputs';
import type { TaskBus, TaskBusMessage } from './task-bus';
import { delay } from './task-modes';
import type { TaskEngine } from './task-engine';
import { InvalidTaskTransitionError } from './task-store.errors';
import type { TaskStore } from './task-store';
import { TaskScope } from './task-scope';
import { isTerminal, type TaskOutcome, type TaskRecord } from './task.types';

/** Tells the listeners of a task (subscriptions/listen) its new state. */
export type TaskNotifier = (taskId: string, owner: string, detailed: Record<string, unknown>) => void;

/** How long an instance waits for the one running a task to tell its input requests, in ms. */
const ASK_TIMEOUT_MS = 2_000;

const needsTasks = (what: string) => missingCapability({ extensions: { [TASKS_EXTENSION]: {} } }, what);

/** True when the request's client declared the tasks extension. */
export function declaresTasks(scope: RequestScope): boolean {
  return declaresExtension(scope.peer.clientCapabilities, TASKS_EXTENSION);
}

/**
 * Tasks of the 2026-07-28 era, the `io.modelcontextprotocol/tasks` extension: a tools/call may be
 * answered with a task (flat CreateTaskResult), durable in the TaskStore before the answer; tasks/get
 * shows it (result inline, error when failed, inputRequests while input_required), tasks/update brings
 * the answers the handler waits on, tasks/cancel aborts it. Before its task exists, a handler's requests
 * to the client are multi round-trip requests of the tools/call itself.
 */
export class PerRequestTasks {
  /** The input requests of the tasks running here, by task id (the engine knows their handlers). */
  private readonly running = new Map<string, PerRequestTaskInputs>();
  notifier?: TaskNotifier;

  private readonly store: TaskStore;

  constructor(
    private readonly engine: TaskEngine,
    private readonly logError: (message: string, error?: unknown) => void,
    /** Scaled out: carries a task's input between the instance running it and the one a tasks/get or update reached. */
    private readonly bus?: TaskBus,
  ) {
    this.store = engine.store;
  }

  /**
   * A per-request tools/call of a tool that may run as a task: when the client declared the extension,
   * `run` (the rest of the tool's pipeline) runs the call, and the call becomes a task if it does not
   * finish in time or asks the client for something; otherwise it simply runs (a task-only tool is refused).
   */
  callTool(tool: ToolDescriptor, call: Call, run: (call: Call) => Promise<unknown>): Promise<unknown> {
    if (declaresTasks(call.scope)) return this.runAsTask(tool, call, run);
    if (tool.taskSupport === 'required')
      return Promise.reject(needsTasks(`the tasks extension ${TASKS_EXTENSION} (tool "${tool.name}" runs only as a task)`));
    return run(call);
  }

  private async runAsTask(tool: ToolDescriptor, call: Call, execute: (call: Call) => Promise<unknown>): Promise<unknown> {
    const scope = call.scope;
    const owner = scope.owner;
    await this.engine.admit(owner);
    const controller = new AbortController();
    let record: TaskRecord | undefined;
    let created: (r: TaskRecord) => void = () => undefined;
    const creation = new Promise<TaskRecord>((resolve) => (created = resolve));
    const inputs = new PerRequestTaskInputs(async (outstanding) => {
      const rec = await creation;
      const changed = await this.engine.setLiveStatus(rec, outstanding ? 'input_required' : 'working');
      if (changed) this.notify(changed);
    });
    let taskMode = false;
    let now: () => void = () => undefined;
    const createNow = new Promise<undefined>((resolve) => (now = () => resolve(undefined)));
    const binding: TaskBinding = {
      get taskId() {
        return record?.task.taskId ?? '';
      },
      request: (method, params, options) => {
        const key = inputs.keyFor(method, options.key);
        // Asked before the task exists, the request is a multi round-trip one: the client answers by retrying the call.
        if (!taskMode && options.beforeTask) return scope.outbound.request(method, withoutTaskMeta(params), { ...options, key });
        // Otherwise the task is created now (if it was not yet), and the request waits in it.
        if (!taskMode) {
          taskMode = true;
          now();
        }
        return inputs.ask(key, method, params, options.signal);
      },
    };
    const onAbort = () => taskMode || controller.abort(scope.signal.reason);
    scope.signal.addEventListener('abort', onAbort, { once: true });
    const taskScope = new TaskScope(
      originOf(scope, () => taskMode),
      controller,
      binding,
    );
    // The handler may run past the request's answer: its log entries keep the request's fields all the same.
    const run: Promise<TaskOutcome> = execute(call.in(taskScope)).then(
      (result) => ({ result: result as Record<string, unknown> }),
      (error: unknown) => this.engine.outcomeOfError(error, `Task of ${tool.where}`),
    );
    const early = await Promise.race([run, delay(this.engine.options.immediateWindowMs), createNow]);
    // The handler asked for input not given yet: the tools/call answers with an InputRequiredResult.
    if ((scope as { needsInput?: boolean }).needsInput) return {};
    if (early && tool.taskSupport === 'optional' && !taskMode) {
      scope.signal.removeEventListener('abort', onAbort);
      taskScope.finish();
      if ('error' in early) throw new McpError(early.error.code, early.error.message, early.error.data);
      return early.result;
    }
    taskMode = true;
    scope.signal.removeEventListener('abort', onAbort);
    record = await this.engine.create(owner);
    const taskId = record.task.taskId;
    this.running.set(taskId, inputs);
    // Scaled out: another instance's tasks/get and tasks/update reach the inputs through the bus.
    const relayed = this.bus
      ? await this.serve(this.bus, taskId, inputs).catch((e) => void this.logError(`Could not serve task ${taskId} to other instances`, e))
      : undefined;
    created(record);
    // A lease while it runs here, and a cancellation made through another instance stops it.
    const end = await this.engine.begin(record, controller);
    let firstTry: () => void = () => undefined;
    const tried = new Promise<void>((resolve) => (firstTry = resolve));
    const finishing = run
      .then((outcome) => this.finish(record!, outcome, firstTry))
      .finally(async () => {
        firstTry();
        taskScope.finish();
        await relayed?.().catch((e) => this.logError(`Could not stop serving task ${taskId} to other instances`, e));
        this.running.delete(taskId);
        await end();
      });
    if (early) {
      // Finished within the window, but the tool runs only as a task: its task is already terminal (unless
      // the store is down: the answer then shows it working, and its end is recorded once the store is back).
      await tried;
      record = (await this.store.get(taskId, owner).catch(() => undefined)) ?? record;
    }
    // Never rejects: the engine logs what it could not record, and the cleanup catches its own faults.
    void finishing;
    return { ...view(record), resultType: 'task' };
  }

  /** Records the end through the engine (retried while the store is unavailable), then tells the listeners. */
  private async finish(record: TaskRecord, outcome: TaskOutcome, firstTry: () => void): Promise<void> {
    const status = 'error' in outcome ? 'failed' : 'completed';
    const done = await this.engine.settle(record, status, outcome, 'error' in outcome ? outcome.error.message : undefined, firstTry);
    if (done) this.notify(done, outcome);
  }

  private notify(record: TaskRecord, outcome?: TaskOutcome): void {
    if (!this.notifier) return;
    this.notifier(record.task.taskId, record.owner, this.detailed(record, outcome));
  }

  /** The DetailedTask of a record. */
  private detailed(record: TaskRecord, outcome?: TaskOutcome, requests?: Record<string, unknown>): Record<string, unknown> {
    const out = view(record);
    const status = record.task.status;
    if (status === 'input_required') out.inputRequests = requests ?? this.running.get(record.task.taskId)?.requests() ?? {};
    // Inline, the result is the complete 2026-07-28 CallToolResult the tools/call would have answered.
    if (outcome && status === 'completed' && 'result' in outcome) out.result = { resultType: 'complete', ...outcome.result };
    // A task whose instance died was failed with a message, not an error: the error says so.
    if (status === 'failed')
      out.error =
        outcome && 'error' in outcome
          ? outcome.error
          : { code: ErrorCode.InternalError, message: record.task.statusMessage ?? 'The task failed' };
    return out;
  }

  /** The open input requests of a task: here, or asked of the instance running it. */
  private async openRequests(taskId: string): Promise<Record<string, InputRequest> | undefined> {
    const local = this.running.get(taskId);
    if (local) return local.requests() ?? {};
    return this.bus && this.askRequests(this.bus, taskId);
  }

  /**
   * Serves a task running here to the other instances: answers their question for its open input
   * requests, and takes the answers a tasks/update brought there. Resolves once listening, with the
   * function that stops it.
   */
  private serve(bus: TaskBus, taskId: string, inputs: PerRequestTaskInputs): Promise<() => Promise<void>> {
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
  private async askRequests(bus: TaskBus, taskId: string): Promise<Record<string, InputRequest> | undefined> {
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

  /** tasks/get, tasks/update, tasks/cancel (per-request methods). */
  handlers(): Record<string, MethodHandler> {
    return {
      'tasks/get': async (params, scope) => {
        const record = await this.find(params, scope);
        const status = record.task.status;
        const outcome =
          status === 'completed' || status === 'failed' ? await this.store.outcome(record.task.taskId, record.owner) : undefined;
        const requests = status === 'input_required' ? await this.openRequests(record.task.taskId) : undefined;
        return this.detailed(record, outcome, requests);
      },
      'tasks/update': async (params, scope) => {
        const record = await this.find(params, scope);
        const responses = params.inputResponses;
        if (typeof responses !== 'object' || responses === null || Array.isArray(responses))
          throw McpError.invalidParams('Invalid params: inputResponses must be an object');
        const taskId = record.task.taskId;
        const local = this.running.get(taskId);
        if (local) local.answer(responses as Record<string, unknown>);
        else if (this.bus && !isTerminal(record.task.status)) {
          // Running on another instance: checked here against its open requests, then handed to it.
          const open = await this.askRequests(this.bus, taskId);
          if (open) {
            checkAnswers(open, responses as Record<string, unknown>);
            await this.bus.publish(taskId, {
              kind: 'modern-update',
              from: this.bus.instanceId,
              responses: responses as Record<string, unknown>,
            });
          }
        }
        return {};
      },
      'tasks/cancel': async (params, scope) => {
        const record = await this.find(params, scope);
        if (isTerminal(record.task.status)) return {};
        const taskId = record.task.taskId;
        try {
          const done = await this.engine.cancel(record);
          if (done) this.notify(done);
        } catch (error) {
          // It ended first: nothing to cancel, and whatever still runs here stops.
          if (!(error instanceof InvalidTaskTransitionError)) throw error;
          this.engine.abort(taskId);
        }
        return {};
      },
    };
  }

  private async find(params: Record<string, unknown>, scope: RequestScope): Promise<TaskRecord> {
    if (!declaresTasks(scope)) throw needsTasks(`the tasks extension ${TASKS_EXTENSION}`);
    const taskId = params.taskId;
    if (typeof taskId !== 'string') throw McpError.invalidParams('Invalid params: "taskId" must be a string');
    const record = await this.store.get(taskId, scope.owner);
    if (!record) throw McpError.invalidParams(`Task not found${(await this.store.wasExpired(taskId)) ? ' (expired)' : ''}`, { taskId });
    return record;
  }
}

/** The flat wire view of a task (ttlMs, pollIntervalMs). */
function view(record: TaskRecord): Record<string, unknown> {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttl, pollInterval } = record.task;
  const out: Record<string, unknown> = { taskId, status, createdAt, lastUpdatedAt, ttlMs: ttl };
  if (statusMessage !== undefined) out.statusMessage = statusMessage;
  if (pollInterval !== undefined) out.pollIntervalMs = pollInterval;
  return out;
}

/** The request a task's handler sees as its origin: once a task, its notifications (progress, logs) go nowhere. */
function originOf(scope: RequestScope, isTask: () => boolean): RequestScope {
  const outbound: Outbound = {
    notify: (method, params, related) =>
      isTask() ? Promise.resolve() : scope.outbound.notify(method, params && withoutTaskMeta(params), related),
    request: (method, params, options) => scope.outbound.request(method, params, options),
    sendIntermediateResult: (id, result) => scope.outbound.sendIntermediateResult(id, result),
    reachable: false,
  };
  return {
    id: scope.id,
    method: scope.method,
    params: scope.params,
    peer: scope.peer,
    outbound,
    owner: scope.owner,
    extra: scope.extra,
    signal: scope.signal,
    cancelled: scope.cancelled,
    abortHandler: (reason) => scope.abortHandler(reason),
    context: () => scope.context(),
  };
}
