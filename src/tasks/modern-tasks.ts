import { TASKS_EXTENSION } from '../mcp/eras';
import { declaresExtension } from '../mcp/extensions';
import { ErrorCode } from '../mcp/json-rpc';
import { McpError, mcpErrorOf } from '../mcp/mcp.error';
import { missingCapability } from '../protocol/modern/envelope';
import type { Outbound } from '../protocol/peer';
import type { ToolCall } from '../protocol/protocol-feature';
import type { MethodHandler, RequestScope, TaskBinding } from '../protocol/request-scope';
import type { ToolInvoker } from '../protocol/tool-invoker';
import { checkAnswers, InputRequest, ModernTaskInputs } from './modern-task-inputs';
import { ModernTaskRelay } from './modern-task-relay';
import type { TaskBus } from './task-bus';
import { delay } from './task-modes';
import { watchForCancellation } from './task-leases';
import type { ResolvedTaskOptions } from './task-options';
import { InvalidTaskTransitionError } from './task-store.errors';
import type { TaskStore } from './task-store';
import { TaskScope } from './task-scope';
import { isTerminal, type TaskOutcome, type TaskRecord } from './task.types';

/** Tells the listeners of a task (subscriptions/listen) its new state. */
export type TaskNotifier = (taskId: string, owner: string, detailed: Record<string, unknown>) => void;

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
export class ModernTasks {
  private readonly running = new Map<string, { controller: AbortController; inputs: ModernTaskInputs }>();
  notifier?: TaskNotifier;

  private readonly relay?: ModernTaskRelay;

  constructor(
    private readonly store: TaskStore,
    private readonly options: ResolvedTaskOptions,
    private readonly logError: (message: string, error?: unknown) => void,
    bus?: TaskBus,
  ) {
    if (bus) this.relay = new ModernTaskRelay(bus, logError);
  }

  /** Takes over a modern tools/call of a tool that supports tasks, when the client declared the extension. */
  intercept(tools: ToolInvoker, call: ToolCall): Promise<unknown> | undefined {
    const support = call.tool.taskSupport;
    if (support !== 'required' && support !== 'optional') return undefined;
    if (!declaresTasks(call.scope)) {
      if (support === 'required') throw needsTasks(`the tasks extension ${TASKS_EXTENSION} (tool "${call.tool.name}" runs only as a task)`);
      return undefined;
    }
    return this.callTool(tools, call);
  }

  private async callTool(tools: ToolInvoker, { tool, args, scope }: ToolCall): Promise<unknown> {
    const owner = scope.owner;
    if ((await this.store.countActive(owner)) >= this.options.maxActivePerOwner) {
      throw McpError.invalidRequest(`Too many tasks in progress: at most ${this.options.maxActivePerOwner} at a time`);
    }
    const controller = new AbortController();
    let record: TaskRecord | undefined;
    let created: (r: TaskRecord) => void = () => undefined;
    const creation = new Promise<TaskRecord>((resolve) => (created = resolve));
    const inputs = new ModernTaskInputs(async (outstanding) => {
      const rec = await creation;
      await this.setStatus(rec, outstanding ? 'input_required' : 'working');
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
        if (!taskMode && options.beforeTask) return scope.outbound.request(method, stripTaskMeta(params), { ...options, key });
        // Otherwise the task is created now (if it was not yet), and the request waits in it.
        if (!taskMode) ((taskMode = true), now());
        return inputs.ask(key, method, params, options.signal);
      },
    };
    const onAbort = () => taskMode || controller.abort(scope.signal.reason);
    scope.signal.addEventListener('abort', onAbort, { once: true });
    const taskScope = new TaskScope(originOf(scope, () => taskMode), controller, binding);
    const run: Promise<TaskOutcome> = tools.call(tool, args, taskScope).then(
      (result) => ({ result: result as unknown as Record<string, unknown> }),
      (error: unknown) => {
        const e = mcpErrorOf(error) ?? new McpError(ErrorCode.InternalError, 'Internal error');
        if (!mcpErrorOf(error)) this.logError(`Task of ${tool.where} failed`, error);
        return { error: e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data } };
      },
    );
    const early = await Promise.race([run, delay(this.options.immediateWindowMs), createNow]);
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
    record = await this.store.create({ owner, ttl: this.options.defaultTtlMs, pollInterval: this.options.pollIntervalMs });
    const taskId = record.task.taskId;
    this.running.set(taskId, { controller, inputs });
    // Scaled out: another instance's tasks/get and tasks/update reach the inputs through the bus.
    const relayed = this.relay ? await this.relay.serve(taskId, inputs).catch((e) => void this.logError(`Could not serve task ${taskId} to other instances`, e)) : undefined;
    created(record);
    // With a shared store: a lease while it runs here, and a cancellation made through another instance stops it.
    await this.store.renewLeases?.([taskId], this.options.leaseMs).catch((e) => this.logError('Could not take a task lease', e));
    const watching = new AbortController();
    if (this.store.distributed) void watchForCancellation(this.store, taskId, owner, controller, watching.signal, this.logError);
    const finishing = run
      .then((outcome) => this.finish(record!, outcome))
      .finally(async () => {
        watching.abort();
        taskScope.finish();
        await relayed?.().catch((e) => this.logError(`Could not stop serving task ${taskId} to other instances`, e));
        this.running.delete(taskId);
        await this.store.releaseLease?.(taskId).catch((e) => this.logError(`Could not release the lease of task ${taskId}`, e));
      });
    if (early) {
      // Finished within the window, but the tool runs only as a task: its task is already terminal.
      await finishing;
      record = (await this.store.get(taskId, owner)) ?? record;
    } else void finishing;
    return { ...view(record), resultType: 'task' };
  }

  private async finish(record: TaskRecord, outcome: TaskOutcome): Promise<void> {
    const status = 'error' in outcome ? 'failed' : 'completed';
    try {
      const done = await this.store.finish(record.task.taskId, record.owner, status, outcome, 'error' in outcome ? outcome.error.message : undefined);
      if (done) this.notify(done, outcome);
    } catch (error) {
      // Cancelled meanwhile: it stays cancelled.
      if (!(error instanceof InvalidTaskTransitionError)) this.logError(`Could not record the end of task ${record.task.taskId}`, error);
    }
  }

  private async setStatus(record: TaskRecord, status: 'working' | 'input_required'): Promise<void> {
    try {
      const rec = await this.store.setStatus(record.task.taskId, record.owner, status);
      if (rec) this.notify(rec);
    } catch (error) {
      if (!(error instanceof InvalidTaskTransitionError)) this.logError(`Could not set task ${record.task.taskId} ${status}`, error);
    }
  }

  private notify(record: TaskRecord, outcome?: TaskOutcome): void {
    if (!this.notifier) return;
    this.notifier(record.task.taskId, record.owner, this.detailed(record, outcome));
  }

  /** The DetailedTask of a record. */
  private detailed(record: TaskRecord, outcome?: TaskOutcome, requests?: Record<string, unknown>): Record<string, unknown> {
    const out = view(record);
    const status = record.task.status;
    if (status === 'input_required') out.inputRequests = requests ?? this.running.get(record.task.taskId)?.inputs.requests() ?? {};
    // Inline, the result is the complete 2026-07-28 CallToolResult the tools/call would have answered.
    if (outcome && status === 'completed' && 'result' in outcome) out.result = { resultType: 'complete', ...outcome.result };
    // A task whose instance died was failed with a message, not an error: the error says so.
    if (status === 'failed') out.error = outcome && 'error' in outcome ? outcome.error : { code: ErrorCode.InternalError, message: record.task.statusMessage ?? 'The task failed' };
    return out;
  }

  /** The open input requests of a task: here, or asked of the instance running it. */
  private async openRequests(taskId: string): Promise<Record<string, InputRequest> | undefined> {
    const local = this.running.get(taskId);
    if (local) return local.inputs.requests() ?? {};
    return this.relay?.requests(taskId);
  }

  /** tasks/get, tasks/update, tasks/cancel (modern methods). */
  handlers(): Record<string, MethodHandler> {
    return {
      'tasks/get': async (params, scope) => {
        const record = await this.find(params, scope);
        const status = record.task.status;
        const outcome = status === 'completed' || status === 'failed' ? await this.store.outcome(record.task.taskId, record.owner) : undefined;
        const requests = status === 'input_required' ? await this.openRequests(record.task.taskId) : undefined;
        return this.detailed(record, outcome, requests);
      },
      'tasks/update': async (params, scope) => {
        const record = await this.find(params, scope);
        const responses = params.inputResponses;
        if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) throw McpError.invalidParams('Invalid params: inputResponses must be an object');
        const taskId = record.task.taskId;
        const local = this.running.get(taskId);
        if (local) local.inputs.answer(responses as Record<string, unknown>);
        else if (this.relay && !isTerminal(record.task.status)) {
          // Running on another instance: checked here against its open requests, then handed over.
          const open = await this.relay.requests(taskId);
          if (open) {
            checkAnswers(open, responses as Record<string, unknown>);
            await this.relay.update(taskId, responses as Record<string, unknown>);
          }
        }
        return {};
      },
      'tasks/cancel': async (params, scope) => {
        const record = await this.find(params, scope);
        if (isTerminal(record.task.status)) return {};
        const taskId = record.task.taskId;
        try {
          const done = await this.store.finish(taskId, record.owner, 'cancelled', { result: { content: [{ type: 'text', text: 'The task was cancelled' }], isError: true } }, 'The task was cancelled by request.');
          if (done) this.notify(done);
        } catch (error) {
          if (!(error instanceof InvalidTaskTransitionError)) throw error;
        }
        this.running.get(taskId)?.controller.abort(new McpError(ErrorCode.InvalidRequest, 'The task was cancelled'));
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

  /** The tasks running here (their leases are renewed). */
  runningIds(): string[] {
    return [...this.running.keys()];
  }

  /** Aborts the handlers still running here (shutdown). */
  close(): void {
    for (const [, r] of this.running) r.controller.abort(new McpError(ErrorCode.InternalError, 'The server is shutting down'));
    this.running.clear();
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

function stripTaskMeta(params: Record<string, unknown>): Record<string, unknown> {
  const meta = params._meta as Record<string, unknown> | undefined;
  if (!meta) return params;
  const { ['io.modelcontextprotocol/related-task']: _r, ...rest } = meta;
  const { _meta: _m, ...others } = params;
  return Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others;
}

/** The request a task's handler sees as its origin: once a task, its notifications (progress, logs) go nowhere. */
function originOf(scope: RequestScope, isTask: () => boolean): RequestScope {
  const outbound: Outbound = {
    notify: (method, params, related) => (isTask() ? Promise.resolve() : scope.outbound.notify(method, params && stripTaskMeta(params), related)),
    request: (method, params, options) => scope.outbound.request(method, params, options),
    sendIntermediateResult: (id, result) => scope.outbound.sendIntermediateResult(id, result),
    reachable: false,
  };
  return { id: scope.id, method: scope.method, params: scope.params, peer: scope.peer, outbound, owner: scope.owner, extra: scope.extra, signal: scope.signal, cancelled: scope.cancelled, context: () => scope.context() };
}
