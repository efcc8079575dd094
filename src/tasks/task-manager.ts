import { ErrorCode } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import { ANONYMOUS_OWNER } from '../protocol/connection';
import type { Outbound } from '../protocol/peer';
import { echo } from '../protocol/wire';
import type { RequestScope, TaskBinding } from '../protocol/request-scope';
import type { Call } from '../protocol/pipeline/call';
import type { TaskBus } from './task-bus';
import { TaskInputs } from './task-inputs';
import { PerRequestTasks } from './per-request-tasks';
import { TaskScope } from './task-scope';
import { firstText, related } from './task-results';
import { delay, immediateAnswer, negotiate } from './task-modes';
import { TaskEngine } from './task-engine';
import { SegmentStreamer } from './segment-streamer';
import type { ToolDescriptor } from '../registry/descriptors';
import type { CallToolResult } from '../mcp/mcp-types';
import type { ResolvedTaskOptions } from './task-options';
import { InvalidTaskCursorError, InvalidTaskTransitionError } from './task-store.errors';
import type { TaskStore } from './task-store';
import { FALLBACK_MODE, isTerminal, MODEL_IMMEDIATE_RESPONSE, type TaskOutcome, type TaskRecord, type TaskSegment } from './task.types';

/**
 * Runs task-augmented tool calls in the background and keeps their tasks right: status transitions
 * (with `notifications/tasks/status`), input_required while the handler waits on the client, the
 * outcome, streamed segments, cancellation. The response modes of the task-result-streaming
 * proposal are negotiated here.
 */
export class TaskManager {
  /** Where a task's requests to the client go: a waiting tasks/result, here or on another instance. */
  private readonly inputs: TaskInputs;
  /** The engine both eras share: limits, ttl, leases, status changes, cancellation, recording the end. */
  private readonly engine: TaskEngine;
  /** Tasks of the 2026-07-28 era (the tasks extension), over the same engine. */
  readonly perRequest: PerRequestTasks;

  constructor(
    readonly store: TaskStore,
    readonly options: ResolvedTaskOptions,
    private readonly logError: (message: string, error?: unknown) => void,
    clientRequestTimeoutMs: number,
    bus?: TaskBus,
  ) {
    this.inputs = new TaskInputs(clientRequestTimeoutMs, bus, logError);
    this.engine = new TaskEngine(store, options, logError);
    this.perRequest = new PerRequestTasks(this.engine, logError, bus);
  }

  /**
   * tools/call with a `task` field: the task is made, and `run` (the rest of the tool's pipeline) runs the
   * call inside it, in the background.
   */
  async callTool(
    tool: ToolDescriptor,
    taskParams: Record<string, unknown>,
    call: Call,
    run: (call: Call) => Promise<unknown>,
  ): Promise<unknown> {
    const scope = call.scope;
    const owner = scope.owner;
    await this.engine.admit(owner);
    const { mode, fallback } = negotiate(taskParams.responseModes);
    const record = await this.engine.create(
      owner,
      taskParams.ttl,
      fallback ? 'The requested response modes are not supported; answering with a task' : undefined,
    );
    const taskId = record.task.taskId;
    // Streaming applies to incremental tools (async generators), when the client accepts it.
    const streams =
      tool.streaming && (mode === 'streaming' || (mode === 'immediate' && (taskParams.responseModes as unknown[]).includes('streaming')));
    const streamer = new SegmentStreamer(scope, taskId, streams);
    // The handler runs past the request's answer: its log entries keep the request's fields all the same.
    const outcome = this.execute(tool, call, run, record, (segments) => streamer.push(segments));

    if (mode === 'immediate') {
      const early = await Promise.race([outcome, delay(this.options.immediateWindowMs)]);
      if (early) return immediateAnswer(early, taskId);
    }
    if (!streams) return this.createTaskResult(record, tool, fallback);
    // Streaming. A generator that is already done is answered in one response marked complete;
    // otherwise the first answer is the task (with what was produced so far) and segments follow.
    const done = await Promise.race([outcome, new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined)))]);
    if (done) return streamer.whole(done, (await this.store.get(taskId, owner))?.task ?? record.task);
    await streamer.start({ task: record.task });
    return streamer.final(await outcome, (await this.store.get(taskId, owner))?.task.status);
  }

  private createTaskResult(record: TaskRecord, tool: ToolDescriptor, fallback: boolean): Record<string, unknown> {
    const meta: Record<string, unknown> = {};
    if (tool.immediateResponse) meta[MODEL_IMMEDIATE_RESPONSE] = tool.immediateResponse;
    if (fallback) meta[FALLBACK_MODE] = 'task';
    return Object.keys(meta).length > 0 ? { task: record.task, _meta: meta } : { task: record.task };
  }

  /** Runs the handler to its end and records the outcome (unless the task ended first, e.g. cancelled). */
  private async execute(
    tool: ToolDescriptor,
    call: Call,
    run: (call: Call) => Promise<unknown>,
    record: TaskRecord,
    onSegments: (segments: TaskSegment[]) => Promise<void>,
  ): Promise<TaskOutcome> {
    const origin = call.scope;
    const { taskId } = record.task;
    const owner = record.owner;
    const controller = new AbortController();
    const end = await this.engine.begin(record, controller);
    const stopTracking = await this.inputs.track(taskId).catch((e) => {
      this.logError(`Task ${taskId}: requests to the client can only travel on this instance`, e);
      return async () => undefined;
    });
    const scope = new TaskScope(origin, controller, this.binding(record, origin.outbound));
    let outcome: TaskOutcome;
    let status: 'completed' | 'failed';
    let message: string | undefined;
    try {
      const result = (await run(
        call.in(scope, async (blocks) => onSegments(await this.store.appendSegments(taskId, owner, blocks))),
      )) as CallToolResult;
      outcome = { result: result as unknown as Record<string, unknown> };
      status = result.isError ? 'failed' : 'completed';
      message = result.isError ? firstText(result) : undefined;
    } catch (error) {
      outcome = this.engine.outcomeOfError(error, `Task ${taskId} of ${tool.where}`);
      status = 'failed';
      message = (outcome as { error: { message: string } }).error.message;
    } finally {
      scope.finish();
      await stopTracking().catch((e) => this.logError(`Task ${taskId}: could not stop listening to its channel`, e));
    }
    const done = await this.engine.settle(record, status, outcome, message);
    if (done) await this.notifyStatus(origin.outbound, done);
    await end();
    return outcome;
  }

  /** What a task's handler uses to ask the client: input_required while any answer is outstanding. */
  private binding(record: TaskRecord, origin: Outbound): TaskBinding {
    const { taskId } = record.task;
    let outstanding = 0;
    const setStatus = async (status: 'input_required' | 'working') => {
      const rec = await this.engine.setLiveStatus(record, status);
      if (rec) await this.notifyStatus(origin, rec);
    };
    return {
      taskId,
      request: async (method, params, options) => {
        if (outstanding++ === 0) await setStatus('input_required');
        try {
          return await this.inputs.request(taskId, origin, method, params, options);
        } finally {
          if (--outstanding === 0) await setStatus('working');
        }
      },
    };
  }

  private async notifyStatus(outbound: Outbound, record: TaskRecord): Promise<void> {
    await outbound.notify('notifications/tasks/status', { ...record.task });
  }

  /** tasks/get */
  async get(taskId: string, scope: RequestScope): Promise<Record<string, unknown>> {
    return { ...(await this.find(taskId, scope)).task };
  }

  /**
   * tasks/result: blocks (woken by the store) until the task is terminal, then answers exactly what
   * tools/call would have; with `lastSeqNr`, answers the segments after it at once.
   */
  async result(taskId: string, lastSeqNr: unknown, scope: RequestScope): Promise<Record<string, unknown>> {
    const owner = scope.owner;
    if (lastSeqNr !== undefined) {
      if (typeof lastSeqNr !== 'number' || !Number.isInteger(lastSeqNr) || lastSeqNr <= 0) {
        throw McpError.invalidParams('Invalid params: lastSeqNr must be a positive integer');
      }
      const record = await this.find(taskId, scope);
      const segments = await this.store.segments(taskId, owner, lastSeqNr);
      const status = record.task.status;
      const result: Record<string, unknown> = {
        'partial-content': segments,
        isComplete: status === 'completed' || status === 'failed' || status === 'cancelled',
        _meta: related(taskId),
      };
      if (status === 'failed') result.isError = true;
      return result;
    }
    let record = await this.find(taskId, scope);
    if (isTerminal(record.task.status)) return this.outcomeOf(taskId, owner);
    // While this request waits, it carries the task's requests to the client (those held first).
    const stopWaiting = await this.inputs.wait(taskId, { id: scope.id, outbound: scope.outbound }, this.engine.runsHere(taskId));
    try {
      for (;;) {
        await this.store.waitForChange(taskId, owner, record.version, scope.signal);
        if (scope.cancelled) return {};
        record = await this.find(taskId, scope);
        if (isTerminal(record.task.status)) return await this.outcomeOf(taskId, owner);
      }
    } finally {
      await stopWaiting();
    }
  }

  /** Exactly what tools/call would have answered, tied to its task. */
  private async outcomeOf(taskId: string, owner: string): Promise<Record<string, unknown>> {
    const outcome = await this.store.outcome(taskId, owner);
    if (!outcome) throw new McpError(ErrorCode.InternalError, 'The task ended without a result');
    if ('error' in outcome) throw new McpError(outcome.error.code, outcome.error.message, outcome.error.data);
    return { ...outcome.result, _meta: { ...(outcome.result._meta as object | undefined), ...related(taskId) } };
  }

  /** tasks/list */
  async list(cursor: string | undefined, limit: number, scope: RequestScope): Promise<Record<string, unknown>> {
    const owner = scope.owner;
    // Unauthenticated stateless clients share one owner: listing would hand out each other's task ids.
    if (owner === ANONYMOUS_OWNER) return { tasks: [] };
    try {
      const page = await this.store.list(owner, cursor, limit);
      const result: Record<string, unknown> = { tasks: page.tasks.map((r) => r.task) };
      if (page.nextCursor) result.nextCursor = page.nextCursor;
      return result;
    } catch (error) {
      if (error instanceof InvalidTaskCursorError) throw McpError.invalidParams('Invalid cursor', { cursor: echo(cursor) });
      throw error;
    }
  }

  /** tasks/cancel: cancelled before the answer, the handler's signal aborted, and it stays cancelled. */
  async cancel(taskId: string, scope: RequestScope): Promise<Record<string, unknown>> {
    const record = await this.find(taskId, scope);
    const status = record.task.status;
    if (isTerminal(status)) throw McpError.invalidParams(`Cannot cancel task: already in terminal status '${status}'`);
    let done: TaskRecord | undefined;
    try {
      done = await this.engine.cancel(record);
    } catch (error) {
      if (error instanceof InvalidTaskTransitionError)
        throw McpError.invalidParams(`Cannot cancel task: already in terminal status '${error.from}'`);
      throw error;
    }
    if (!done) throw this.notFound(record.task.taskId, false);
    await this.notifyStatus(scope.outbound, done);
    return { ...done.task };
  }

  /** Aborts the handlers still running here, of both eras (the server is shutting down). */
  close(): Promise<void> {
    return this.engine.close();
  }

  private async find(taskId: unknown, scope: RequestScope): Promise<TaskRecord> {
    if (typeof taskId !== 'string') throw McpError.invalidParams('Invalid params: "taskId" must be a string');
    const record = await this.store.get(taskId, scope.owner);
    if (!record) throw this.notFound(taskId, await this.store.wasExpired(taskId));
    return record;
  }

  private notFound(taskId: string, expired: boolean): McpError {
    return McpError.invalidParams(`Failed to retrieve task: ${expired ? 'Task has expired' : 'Task not found'}`, { taskId });
  }
}
