import type { CallToolResult, ContentBlock } from '../mcp/mcp-types';
import { mcpErrorOf } from '../mcp/mcp.error';
import type { HandlerRef, ToolDescriptor } from '../registry/descriptors';
import { validateInput, type ValidationOutcome } from '../validation/validate-input';
import { errorResult, isAsyncIterable, mapToolError, mapToolResult, toContent, type ToolErrorPolicy } from './handlers/tool-result.mapper';
import type { RequestScope } from './request-scope';
import type { RequestTelemetry } from '../observability/telemetry-options';

/**
 * Runs a user handler: resolves its provider through the container and calls the method. Returns what
 * the method returned (a value, or a promise of it); a synchronous throw is the handler's error too.
 */
export type Invoke = (ref: HandlerRef, args: unknown[]) => unknown;

/**
 * The one path from a tool call to its CallToolResult: validate the arguments, invoke the handler
 * (through the middleware), map what it returned or threw. `tools/call` and tasks both use it.
 */
export class ToolInvoker {
  /** The validation span's name and attributes, by tool (descriptors are frozen; a WeakMap lets a removed tool go). */
  private readonly validationSpans = new WeakMap<ToolDescriptor, { name: string; attributes: Record<string, string> }>();
  /** The telemetry that wants a span around argument validation (option `spans.validation`), else undefined. */
  private readonly telemetry?: RequestTelemetry;

  private readonly errorPolicy: ToolErrorPolicy;

  /** `errors`: whether plain exceptions show their message, and where the one warning about hiding them goes. */
  constructor(
    private readonly invoke: Invoke,
    private readonly logError: (message: string, error?: unknown) => void,
    telemetry?: RequestTelemetry,
    errors: { expose?: boolean; warn?: (message: string) => void } = {},
  ) {
    this.telemetry = telemetry?.validationSpans ? telemetry : undefined;
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

  /**
   * A tool written as an async generator has its yields collected; `onBlocks` sees each batch as it is
   * produced. Rejects with the McpError a handler's error maps to.
   */
  async call(
    tool: ToolDescriptor,
    args: Record<string, unknown> | undefined,
    scope: RequestScope,
    onBlocks?: (blocks: ContentBlock[]) => Promise<void>,
  ): Promise<CallToolResult> {
    const checked = await this.check(tool, args, scope);
    if (checked && !checked.ok) return invalid(tool, checked.issues);
    return this.invokeTool(tool, checked ? checked.value : (args ?? {}), scope, onBlocks);
  }

  /** The arguments checked by the tool's schema or input class; undefined for a tool that declares neither. */
  private async check(
    tool: ToolDescriptor,
    args: Record<string, unknown> | undefined,
    scope: RequestScope,
  ): Promise<ValidationOutcome<unknown> | undefined> {
    if (tool.validate) {
      const validate = tool.validate;
      return this.telemetry ? this.validationSpan(this.telemetry, tool, scope, async () => validate(args ?? {})) : validate(args ?? {});
    }
    if (tool.input) {
      const inputClass = tool.input;
      return this.telemetry
        ? this.validationSpan(this.telemetry, tool, scope, () => validateInput(inputClass, args, 'refuse'))
        : validateInput(inputClass, args, 'refuse');
    }
    return undefined;
  }

  /** Invokes the handler (through the middleware) and maps what it returned or threw. */
  private async invokeTool(
    tool: ToolDescriptor,
    input: unknown,
    scope: RequestScope,
    onBlocks: ((blocks: ContentBlock[]) => Promise<void>) | undefined,
  ): Promise<CallToolResult> {
    try {
      const ctx = scope.context();
      const value = await this.invoke(tool, tool.contextFirst ? [ctx] : [input, ctx]);
      return await mapToolResult(tool, isAsyncIterable(value) ? await collect(value, scope, onBlocks) : value, this.logError);
    } catch (error) {
      return this.mapError(tool, error);
    }
  }

  /** A JSON-RPC error (McpError, or an error that maps to one, e.g. a store's) is the call's answer: thrown. */
  private mapError(tool: ToolDescriptor, error: unknown): CallToolResult {
    const mapped = mcpErrorOf(error);
    if (mapped) throw mapped;
    return mapToolError(tool, error, this.logError, this.errorPolicy);
  }

  /** The span of a tool's argument validation, child of the request's; its name and attributes made once per tool. */
  private validationSpan<T extends { ok: boolean }>(
    telemetry: RequestTelemetry,
    tool: ToolDescriptor,
    scope: RequestScope,
    work: () => Promise<T>,
  ): Promise<T> {
    let span = this.validationSpans.get(tool);
    if (!span)
      this.validationSpans.set(tool, (span = { name: `validate_arguments ${tool.name}`, attributes: { 'gen_ai.tool.name': tool.name } }));
    return telemetry.child(scope.outbound, scope.id, span.name, span.attributes, work, invalidArguments);
  }
}

function invalidArguments(checked: { ok: boolean }): string | undefined {
  return checked.ok ? undefined : 'invalid_arguments';
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
