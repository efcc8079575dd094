import type { CallToolResult, ContentBlock } from '../../mcp/mcp-types';
import { mcpErrorOf } from '../../mcp/mcp.error';
import type { RequestTelemetry } from '../../observability/telemetry-options';
import type { ToolDescriptor } from '../../registry/descriptors';
import { checkParamHeaders, paramHeadersOf } from '../../schema/mcp-header';
import { validateInput, type ValidationOutcome } from '../../validation/validate-input';
import { errorResult, isAsyncIterable, mapToolError, mapToolResult, toContent, type ToolErrorPolicy } from '../handlers/tool-result.mapper';
import type { Call } from './call';
import type { CallStep } from './stages';

/** A tool's arguments failed its input class or schema: the result stage answers with an error result the model can read. */
class InvalidArguments extends Error {
  constructor(readonly issues: readonly string[]) {
    super('Invalid arguments');
  }
}

/** The headers stage of a tool with `x-mcp-header` parameters: a 2026-07-28 call's `Mcp-Param-*` headers must match its arguments. */
export function toolHeadersStep(tool: ToolDescriptor): CallStep | undefined {
  const headers = paramHeadersOf(tool.definition.inputSchema);
  if (headers.length === 0) return undefined;
  return (call, next) => {
    const received = call.scope.peer.perRequest ? call.scope.extra?.headers : undefined;
    const mismatch = received && checkParamHeaders(headers, call.arguments, received);
    return mismatch ? Promise.reject(mismatch) : next();
  };
}

/**
 * The validate stage of a tool that declares an input class or a schema: the checked input replaces the
 * arguments; invalid arguments end the call with an error result naming every issue. With
 * `spans.validation`, the check has a span of its own.
 */
export function toolValidateStep(tool: ToolDescriptor, telemetry: RequestTelemetry | undefined): CallStep | undefined {
  const check = checkerOf(tool);
  if (!check) return undefined;
  const span = telemetry?.validationSpans
    ? { telemetry, name: `validate_arguments ${tool.name}`, attributes: { 'gen_ai.tool.name': tool.name } }
    : undefined;
  return (call, next) => {
    const outcome = span
      ? span.telemetry.child(
          call.scope.outbound,
          call.scope.id,
          span.name,
          span.attributes,
          async () => check(call.arguments),
          invalidArguments,
        )
      : check(call.arguments);
    // A class's compiled plan answers at once: no promise to wait for then.
    return outcome instanceof Promise ? outcome.then((o) => proceed(call, o, next)) : proceed(call, outcome, next);
  };
}

/** The call goes on with its checked input, or ends with its issues (the result stage makes them an error result). */
function proceed(call: Call, outcome: ValidationOutcome<unknown>, next: () => Promise<unknown>): Promise<unknown> {
  if (!outcome.ok) return Promise.reject(new InvalidArguments(outcome.issues));
  call.input = outcome.value;
  return next();
}

type Check = (args: Readonly<Record<string, unknown>>) => ValidationOutcome<unknown> | Promise<ValidationOutcome<unknown>>;

function checkerOf(tool: ToolDescriptor): Check | undefined {
  const { validate, input } = tool;
  if (validate) return (args) => validate(args);
  if (input) return (args) => validateInput(input, args, 'refuse');
  return undefined;
}

function invalidArguments(checked: { ok: boolean }): string | undefined {
  return checked.ok ? undefined : 'invalid_arguments';
}

/**
 * The result stage of a tool: what it returned (a streaming tool's yields collected, each batch handed
 * to the call's `onBlocks`) as a CallToolResult, and what it threw as an error result, unless it maps to
 * a JSON-RPC error, which is the call's answer.
 */
export function toolResultStep(
  tool: ToolDescriptor,
  logError: (message: string, error?: unknown) => void,
  errors: ToolErrorPolicy,
): CallStep {
  return async (call, next) => {
    try {
      const value = await next();
      return await mapToolResult(tool, isAsyncIterable(value) ? await collect(value, call) : value, logError);
    } catch (error) {
      if (error instanceof InvalidArguments)
        return errorResult(`Invalid arguments for tool "${tool.name}":\n${error.issues.map((i) => `- ${i}`).join('\n')}`);
      const mapped = mcpErrorOf(error);
      if (mapped) throw mapped;
      return mapToolError(tool, error, logError, errors);
    }
  };
}

/** Drains a streaming tool (an async generator) into one list of content blocks. */
async function collect(stream: AsyncIterable<unknown>, call: Call): Promise<CallToolResult> {
  const content: ContentBlock[] = [];
  for await (const item of stream) {
    const blocks = toContent(item);
    content.push(...blocks);
    if (call.onBlocks && blocks.length > 0) await call.onBlocks(blocks);
    if (call.scope.cancelled) break;
  }
  return { content };
}
