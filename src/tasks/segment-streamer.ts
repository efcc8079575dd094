import type { CallToolResult } from '../mcp/mcp-types';
import type { RequestScope } from '../protocol/request-scope';
import { firstText, related } from './task-results';
import type { Task, TaskOutcome, TaskSegment } from './task.types';

/**
 * Streams a task's segments to the request that created it (partial-content responses with the
 * request's id); until `start`, segments are held so that the first answer comes first.
 */
export class SegmentStreamer {
  private held: TaskSegment[] = [];
  private live = false;
  private sent = 0;

  constructor(
    private readonly scope: RequestScope,
    private readonly taskId: string,
    private readonly enabled: boolean,
  ) {}

  async push(segments: TaskSegment[]): Promise<void> {
    if (!this.enabled) return;
    if (!this.live) {
      this.held.push(...segments);
      return;
    }
    await this.send(segments, false);
  }

  /** Sends the first answer (the task, plus segments produced so far), then goes live. */
  async start(first: Record<string, unknown>): Promise<void> {
    const held = this.held;
    this.held = [];
    this.live = true;
    // isComplete: false marks every answer but the last, whatever carries it (SSE, a resumed stream).
    const answer: Record<string, unknown> = {
      ...first,
      'partial-content': held,
      isError: false,
      isComplete: false,
      _meta: related(this.taskId),
    };
    this.sent += held.length;
    await this.scope.outbound.sendIntermediateResult(this.scope.id, answer);
  }

  /** The only answer, when everything was produced before the first one could be sent. */
  whole(outcome: TaskOutcome, task: Task): Record<string, unknown> {
    const held = this.held;
    this.held = [];
    if (held.length === 0) return { task, ...this.final(outcome, task.status) };
    this.sent += held.length;
    const failed = 'error' in outcome || outcome.result.isError === true;
    return { task, 'partial-content': held, isError: failed, isComplete: true, _meta: related(this.taskId) };
  }

  /** The last answer: isComplete, and isError when the task failed. */
  final(outcome: TaskOutcome, status: string | undefined): Record<string, unknown> {
    const failed = 'error' in outcome || outcome.result.isError === true || status === 'failed';
    if (failed && this.sent === 0) {
      const text =
        'error' in outcome ? outcome.error.message : (firstText(outcome.result as unknown as CallToolResult) ?? 'The task failed');
      return { content: [{ type: 'text', text }], isError: true, isComplete: true, _meta: related(this.taskId) };
    }
    return { 'partial-content': [], isError: failed, isComplete: true, _meta: related(this.taskId) };
  }

  private async send(segments: TaskSegment[], complete: boolean): Promise<void> {
    this.sent += segments.length;
    await this.scope.outbound.sendIntermediateResult(this.scope.id, {
      'partial-content': segments,
      isError: false,
      isComplete: complete,
      _meta: related(this.taskId),
    });
  }
}
