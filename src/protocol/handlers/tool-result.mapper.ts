import { ToolError } from '../../content/tool.error';
import type { ToolDescriptor } from '../../registry/descriptors';
import { validateInput } from '../../validation/validate-input';
import type { CallToolResult, ContentBlock } from '../../mcp/mcp-types';

const BLOCK_TYPES = new Set(['text', 'image', 'audio', 'resource_link', 'resource']);

export function isContentBlock(value: unknown): value is ContentBlock {
  return typeof value === 'object' && value !== null && BLOCK_TYPES.has((value as { type?: unknown }).type as string);
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return typeof value === 'object' && value !== null && Array.isArray((value as { content?: unknown }).content);
}

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Turns one returned (or yielded) value into content blocks. */
export function toContent(value: unknown): ContentBlock[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (isContentBlock(value)) return [value];
  if (Array.isArray(value)) return value.flatMap((v) => toContent(v));
  return [{ type: 'text', text: JSON.stringify(value) }];
}

/**
 * Maps what a tool returned to a CallToolResult. With a declared output class, data becomes
 * `structuredContent` (validated) plus its JSON as text (the text fallback of a tool with a view); a full
 * result passes through, except that its `structuredContent` is validated too and, when its content is
 * empty, the JSON text is written for it. Without an output class a full result passes through and
 * anything else becomes content blocks.
 */
export async function mapToolResult(
  tool: ToolDescriptor,
  value: unknown,
  logError: (m: string, e?: unknown) => void,
): Promise<CallToolResult> {
  if (isCallToolResult(value)) {
    if (!hasOutput(tool) || value.isError === true || value.structuredContent === undefined) return value;
    const checked = await checkedOutput(tool, value.structuredContent, logError);
    if ('isError' in checked) return checked;
    return {
      ...value,
      content: value.content.length > 0 ? value.content : checked.content,
      structuredContent: checked.structuredContent,
    };
  }
  if (hasOutput(tool)) return checkedOutput(tool, value, logError);
  return { content: toContent(value) };
}

const hasOutput = (tool: ToolDescriptor) => tool.output !== undefined || tool.validateOutput !== undefined;

/** Data checked against the tool's output class: `structuredContent` plus its JSON as text, or an error result. */
async function checkedOutput(tool: ToolDescriptor, value: unknown, logError: (m: string, e?: unknown) => void): Promise<CallToolResult> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    logError(`Tool ${tool.where} declared an output class but returned ${Array.isArray(value) ? 'an array' : typeof value}`);
    return errorResult(`Tool "${tool.name}" produced no structured output`);
  }
  const checked = tool.validateOutput ? tool.validateOutput(value) : await validateInput(tool.output!, value);
  if (!checked.ok) {
    logError(`Tool ${tool.where} returned output that fails its output class: ${checked.issues.join('; ')}`);
    return errorResult(`Tool "${tool.name}" produced invalid output`);
  }
  // Serialized once: the text is the JSON, and the structured content is read back from it (plain data, as a client gets it).
  const text = JSON.stringify(value);
  return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
}

/** How a tool's plain exceptions (anything but ToolError and errors that map to JSON-RPC errors) reach the model. */
export interface ToolErrorPolicy {
  /** Show their message to the model (the application option `exposeToolErrors`); else a generic message. */
  readonly expose: boolean;
  /** Called at the first plain exception of a hidden-message application: says how to show a message. */
  readonly warnOnce: (message: string) => void;
}

/** Maps what a tool threw: ToolError -> its message; anything else -> a generic message (or its own, when exposed), details to the log. */
export function mapToolError(
  tool: ToolDescriptor,
  error: unknown,
  logError: (m: string, e?: unknown) => void,
  policy?: ToolErrorPolicy,
): CallToolResult {
  if (error instanceof ToolError) return errorResult(error.message);
  logError(`Tool ${tool.where} threw`, error);
  if (policy?.expose) return errorResult(error instanceof Error ? error.message : String(error));
  const kind = error instanceof Error ? error.name : typeof error;
  policy?.warnOnce(
    `Tool ${tool.where} threw ${kind}, not ToolError, so the model read only: Tool "${tool.name}" failed with an internal error. ` +
      'Throw ToolError (from mcpkit) for a message the model should read, or set the application option exposeToolErrors: true ' +
      "to pass every error's message through (this warning is logged once)",
  );
  return errorResult(`Tool "${tool.name}" failed with an internal error`);
}

export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function';
}
