import type { PromptDescriptor } from '../../registry/descriptors';
import { validateInput } from '../../validation/validate-input';
import { McpError } from '../../mcp/mcp.error';
import type { GetPromptResult, PromptMessage } from '../../mcp/mcp-types';
import { ListViews } from '../list-views';
import { Paginator } from '../pagination';
import { callerOf } from '../authorizer';
import type { MethodHandler } from '../request-scope';
import { echo } from '../wire';
import { type HandlerEnv, optionalObject, requireString } from './handler-env';
import { isContentBlock } from './tool-result.mapper';

/** prompts/list and prompts/get. */
export function promptsHandlers(env: HandlerEnv): Record<string, MethodHandler> {
  const registry = env.registry;
  const pages = new Paginator(
    'prompts',
    'prompts',
    () => registry.promptDefinitions(),
    env.pageSize,
    () => registry.version,
  );
  const views = new ListViews(
    env.authorizer,
    () => registry.promptDescriptors(),
    () => registry.version,
  );
  return {
    'prompts/list': async (params, scope) => pages.page(params.cursor, await views.view(callerOf(scope.extra))),
    'prompts/get': async (params, scope) => {
      const name = requireString(params, 'name');
      const prompt = env.registry.prompt(name);
      if (!prompt) throw McpError.invalidParams(`Unknown prompt: ${echo(name)}`);
      await env.authorizer.assert(prompt, callerOf(scope.extra));
      const sent = optionalObject(params, 'arguments');
      return env.policies.admit(prompt, { name, arguments: sent ?? {} }, scope, async () => {
        const args = await checkArguments(prompt, sent);
        const ctx = scope.context();
        return mapPromptResult(await env.invoke(prompt, prompt.contextFirst ? [ctx] : [args, ctx]), prompt);
      });
    },
  };
}

async function checkArguments(prompt: PromptDescriptor, args: Record<string, unknown> | undefined): Promise<unknown> {
  if (args) {
    for (const [key, value] of Object.entries(args)) {
      if (typeof value !== 'string') throw McpError.invalidParams(`Invalid arguments for prompt "${prompt.name}": ${key} must be a string`);
    }
  }
  if (!prompt.args && !prompt.validate) return args ?? {};
  const checked = prompt.validate ? prompt.validate(args ?? {}) : await validateInput(prompt.args!, args);
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
