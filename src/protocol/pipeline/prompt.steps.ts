import type { GetPromptResult, PromptMessage } from '../../mcp/mcp-types';
import { McpError } from '../../mcp/mcp.error';
import type { PromptDescriptor } from '../../registry/descriptors';
import { validateInput } from '../../validation/validate-input';
import { isContentBlock } from '../handlers/tool-result.mapper';
import type { CallStep } from './stages';

/** The validate stage of a prompt: every argument a string, then its arguments class or check; invalid arguments are -32602. */
export function promptValidateStep(prompt: PromptDescriptor): CallStep {
  return async (call, next) => {
    call.input = await checkArguments(prompt, call.arguments);
    return next();
  };
}

/** The result stage of a prompt: what it returned as a GetPromptResult. */
export function promptResultStep(prompt: PromptDescriptor): CallStep {
  return async (_call, next) => mapPromptResult(await next(), prompt);
}

async function checkArguments(prompt: PromptDescriptor, args: Readonly<Record<string, unknown>>): Promise<unknown> {
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== 'string') throw McpError.invalidParams(`Invalid arguments for prompt "${prompt.name}": ${key} must be a string`);
  }
  if (!prompt.args && !prompt.validate) return args;
  const checked = prompt.validate ? prompt.validate(args) : await validateInput(prompt.args!, args);
  if (!checked.ok)
    throw McpError.invalidParams(`Invalid arguments for prompt "${prompt.name}": ${checked.issues.join('; ')}`, { issues: checked.issues });
  return checked.value;
}

function isMessage(value: unknown): value is PromptMessage {
  const v = value as PromptMessage | null;
  return typeof v === 'object' && v !== null && (v.role === 'user' || v.role === 'assistant') && isContentBlock(v.content);
}

/** A string is one user message; messages (one or many) and full results pass through. */
function mapPromptResult(value: unknown, prompt: PromptDescriptor): GetPromptResult {
  const withDescription = (messages: PromptMessage[]): GetPromptResult =>
    prompt.definition.description ? { description: prompt.definition.description, messages } : { messages };
  if (typeof value === 'string') return withDescription([{ role: 'user', content: { type: 'text', text: value } }]);
  if (isMessage(value)) return withDescription([value]);
  if (Array.isArray(value) && value.every(isMessage)) return withDescription(value);
  if (typeof value === 'object' && value !== null && Array.isArray((value as GetPromptResult).messages)) return value as GetPromptResult;
  throw new TypeError(`Prompt ${prompt.where} returned a value that is not a string, a message or a list of messages`);
}
