import type { CallToolResult, ContentBlock } from '../mcp/mcp-types';
import { mcpErrorOf } from '../mcp/mcp.error';
import type { HandlerRef, ToolDescriptor } from '../registry/descriptors';
import { validateInput, type ValidationOutcome } from '../validation/validate-input';
import { errorResult, isAsyncIterable, mapToolError, mapToolResult, toContent, type ToolErrorPolicy } from './handlers/tool-result.mapper';
import type { RequestScope } from './request-scope';
import type { RequestTelemetry } from './telemetry/telemetry-options';

/**
 * Runs a user handler: resolves its provider through the container and calls the method. Returns what
 * the handler returned (a promise or not: a synchronous tool costs no promise on the way); may throw.
 */
export type Invoke = (ref: HandlerRef, args: unknown[]) => unknown;

/**
 * The one path from a tool call to its CallToolResult: validate the arguments, invoke the handler
 * (through the middleware), map what it returned or threw. `tools/call` and tasks both use it.
 * Only what is a promise is awaited: with AsyncLocalStorage on (the server log's request fields),
 * every await costs promises and async hooks, and a synchronous tool with a synchronous validator
 * then costs none here.
 */
export class ToolInvoker {
  /** The validation span's name and attributes, by tool (descriptors are frozen; a WeakMap lets a removed tool go). */
  private readonly validationSpans = new WeakMap<ToolDescriptor, { name: string; attributes: Record<string, string> }>();

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
    if (tool.validate || tool.input) {
      let checked = this.telemetry ? await this.tracedValidation(tool, args, scope) : validateArgs(tool, args);
      if (isPromise(checked)) checked = await checked;
      if (!checked.ok) return invalid(tool, checked.issues);
      input = checked.value;
    }
    const ctx = scope.context();
    try {
      let value = this.invoke(tool, tool.contextFirst ? [ctx] : [input, ctx]);
      if (isPromise(value)) value = await value;
      if (isAsyncIterable(value)) value = await collect(value, scope, onBlocks);
      const result = mapToolResult(tool, value, this.logError);
      return isPromise(result) ? await result : result;
    } catch (error) {
      // A JSON-RPC error (McpError, or an error that maps to one, e.g. a store's) is the call's answer.
      const mapped = mcpErrorOf(error);
      if (mapped) throw mapped;
      return mapToolError(tool, error, this.logError, this.errorPolicy);
    }
  }

  /** The span of a tool's argument validation, child of the request's; its name and attributes made once per tool. */
  private tracedValidation(tool: ToolDescriptor, args: Record<string, unknown> | undefined, scope: RequestScope): Promise<Checked> {
    let span = this.validationSpans.get(tool);
    if (!span)
      this.validationSpans.set(tool, (span = { name: `validate_arguments ${tool.name}`, attributes: { 'gen_ai.tool.name': tool.name } }));
    return this.telemetry!.child(
      scope.outbound,
      scope.id,
      span.name,
      span.attributes,
      () => Promise.resolve(validateArgs(tool, args)),
      invalidArguments,
    );
  }
}

function invalidArguments(checked: { ok: boolean }): string | undefined {
  return checked.ok ? undefined : 'invalid_arguments';
}

type Checked = ValidationOutcome<object>;

/** The arguments checked by the tool's JSON Schema validator or its input class. */
function validateArgs(tool: ToolDescriptor, args: Record<string, unknown> | undefined): Checked | Promise<Checked> {
  if (tool.validate) return tool.validate(args ?? {}) as Checked;
  return validateInput(tool.input!, args, 'refuse');
}

/** A promise or any thenable (what `await` would wait for). */
function isPromise<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (
    (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
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
