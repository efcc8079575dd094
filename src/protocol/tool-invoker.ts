import type { CallToolResult, ContentBlock } from '../mcp/mcp-types';
import { mcpErrorOf } from '../mcp/mcp.error';
import type { HandlerRef, ToolDescriptor } from '../registry/descriptors';
import { validateInput } from '../validation/validate-input';
import { errorResult, isAsyncIterable, mapToolError, mapToolResult, toContent, type ToolErrorPolicy } from './handlers/tool-result.mapper';
import type { RequestScope } from './request-scope';
import type { RequestTelemetry } from './telemetry/telemetry-options';

/** Runs a user handler: resolves its provider through the container and calls the method. */
export type Invoke = (ref: HandlerRef, args: unknown[]) => Promise<unknown>;

/**
 * The one path from a tool call to its CallToolResult: validate the arguments, invoke the handler
 * (through the middleware), map what it returned or threw. `tools/call` and tasks both use it.
 */
export class ToolInvoker {
  private readonly errorPolicy: ToolErrorPolicy;

  /** `errors`: whether plain exceptions show their message, and where the one warning about hiding them goes. */
  constructor(
    private readonly invoke: Invoke,
    private readonly logError: (message: string, error?: unknown) => void,
    private readonly telemetry?: RequestTelemetry,
    errors: { expose?: boolean; warn?: (message: string) => void } = {},
  ) {
    let warned = false;
    this.errorPolicy = {
      expose: errors.expose === true,
      warnOnce: (message) => {
        if (warned) return;
        warned = true;
        errors.warn?.(message);
      },
    };
  }

  /** A tool written as an async generator has its yields collected; `onBlocks` sees each batch as it is produced. */
  async call(
    tool: ToolDescriptor,
    args: Record<string, unknown> | undefined,
    scope: RequestScope,
    onBlocks?: (blocks: ContentBlock[]) => Promise<void>,
  ): Promise<CallToolResult> {
    let input: unknown = args ?? {};
    if (tool.validate) {
      const validate = tool.validate;
      const checked = this.telemetry
        ? await this.telemetry.child(
            scope.outbound,
            scope.id,
            `validate_arguments ${tool.name}`,
            { 'gen_ai.tool.name': tool.name },
            async () => validate(args ?? {}),
            (c) => (c.ok ? undefined : 'invalid_arguments'),
          )
        : validate(args ?? {});
      if (!checked.ok) return invalid(tool, checked.issues);
      input = checked.value;
    } else if (tool.input) {
      const inputClass = tool.input;
      const checked = this.telemetry
        ? await this.telemetry.child(
            scope.outbound,
            scope.id,
            `validate_arguments ${tool.name}`,
            { 'gen_ai.tool.name': tool.name },
            () => validateInput(inputClass, args, 'refuse'),
            (c) => (c.ok ? undefined : 'invalid_arguments'),
          )
        : await validateInput(inputClass, args, 'refuse');
      if (!checked.ok) return invalid(tool, checked.issues);
      input = checked.value;
    }
    const ctx = scope.context();
    try {
      let value = await this.invoke(tool, tool.contextFirst ? [ctx] : [input, ctx]);
      if (isAsyncIterable(value)) value = await collect(value, scope, onBlocks);
      return await mapToolResult(tool, value, this.logError);
    } catch (error) {
      // A JSON-RPC error (McpError, or an error that maps to one, e.g. a store's) is the call's answer.
      const mapped = mcpErrorOf(error);
      if (mapped) throw mapped;
      return mapToolError(tool, error, this.logError, this.errorPolicy);
    }
  }
}

function invalid(tool: ToolDescriptor, issues: string[]): CallToolResult {
  return errorResult(`Invalid arguments for tool "${tool.name}":\n${issues.map((i) => `- ${i}`).join('\n')}`);
}

/** Drains a streaming tool (an async generator) into one list of content blocks. */
async function collect(
  stream: AsyncIterable<unknown>,
  scope: RequestScope,
  onBlocks?: (blocks: ContentBlock[]) => Promise<void>,
): Promise<CallToolResult> {
  const content: ContentBlock[] = [];
  for await (const item of stream) {
    const blocks = toContent(item);
    content.push(...blocks);
    if (onBlocks && blocks.length > 0) await onBlocks(blocks);
    if (scope.cancelled) break;
  }
  return { content };
}
