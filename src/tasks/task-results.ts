import type { CallToolResult, ContentBlock } from '../mcp/mcp-types';
import { RELATED_TASK } from './task.types';

/** The `_meta` that ties a message to its task. */
export const related = (taskId: string) => ({ [RELATED_TASK]: { taskId } });

/** The first text block of a result (a failed tool's message). */
export function firstText(result: CallToolResult): string | undefined {
  const block = result.content.find((c): c is ContentBlock & { type: 'text'; text: string } => c.type === 'text');
  return block?.text;
}
