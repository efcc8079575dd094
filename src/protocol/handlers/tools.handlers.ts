import type { ToolDescriptor } from '../../registry/descriptors';
import { validateInput } from '../../validation/validate-input';
import { McpError, mcpErrorOf } from '../../mcp/mcp.error';
import type { CallToolResult, ContentBlock } from '../../mcp/mcp-types';
import { Paginator } from '../pagination';
import { echo } from '../wire';
import type { MethodHandler, RequestScope } from '../request-scope';
import { HandlerEnv, optionalObject, requireString } from './handler-env';
import { errorResult, isAsyncIterable, mapToolError, mapToolResult, toContent } from './tool-result.mapper';

/** tools/list and tools/call. */
export function toolsHandlers(env: HandlerEnv): Record<string, MethodHandler> {
  const registry = env.registry;
  const pages = new Paginator('tools', 'tools', () => registry.toolDefinitions(), env.pageSize, () => registry.version);
  return {
    'tools/list': (params) => pages.page(params.cursor),
    'tools/call': async (params, scope) => {
      const name = requireString(params, 'name');
      const args = optionalObject(params, 'arguments');
      const tool = env.registry.tool(name);
      if (!tool) throw McpError.invalidParams(`Unknown tool: ${echo(name)}`);
      if (env.tasks) {
        // Task augmentation is honoured only when the server declared it (else the field is ignored).
        const task = optionalObject(params, 'task');
        if (task && tool.taskSupport === 'forbidden') throw McpError.methodNotFound(`tools/call as a task (tool "${tool.name}" does not support tasks)`);
        if (!task && tool.taskSupport === 'required') throw McpError.methodNotFound(`tools/call without a task (tool "${tool.name}" must run as a task)`);
        if (task) return env.tasks.callTool(env, tool, args, task, scope);
      }
      return callTool(env, tool, args, scope);
    },
  };
}

/**
 * Validates the arguments, runs the tool and maps its outcome to a CallToolResult. A tool written as
 * an async generator has its yields collected; `onBlocks` sees each batch as it is produced.
 */
export async function callTool(
  env: HandlerEnv,
  tool: ToolDescriptor,
  args: Record<string, unknown> | undefined,
  scope: RequestScope,
  onBlocks?: (blocks: ContentBlock[]) => Promise<void>,
): Promise<CallToolResult> {
  let input: unknown = args ?? {};
  if (tool.input) {
    const checked = await validateInput(tool.input, args);
    if (!checked.ok) {
      return errorResult(`Invalid arguments for tool "${tool.name}":\n${checked.issues.map((i) => `- ${i}`).join('\n')}`);
    }
    input = checked.value;
  }
  const ctx = scope.context();
  try {
    let value = await env.invoke(tool, tool.contextFirst ? [ctx] : [input, ctx]);
    if (isAsyncIterable(value)) value = await collect(value, scope, onBlocks);
    return await mapToolResult(tool, value, env.logError);
  } catch (error) {
    const mapped = mcpErrorOf(error);
    if (mapped) throw mapped;
    return mapToolError(tool, error, env.logError);
  }
}

/** Drains a streaming tool (an async generator) into one list of content blocks. */
async function collect(stream: AsyncIterable<unknown>, scope: RequestScope, onBlocks?: (blocks: ContentBlock[]) => Promise<void>): Promise<CallToolResult> {
  const content: ContentBlock[] = [];
  for await (const item of stream) {
    const blocks = toContent(item);
    content.push(...blocks);
    if (onBlocks && blocks.length > 0) await onBlocks(blocks);
    if (scope.cancelled) break;
  }
  return { content };
}
