import { type CompletionContext, type McpContext } from '../../context/mcp-context';
import type { CompleterDescriptor, HandlerRef } from '../../registry/descriptors';
import { McpError } from '../../mcp/mcp.error';
import { callerOf } from '../authorizer';
import type { MethodHandler } from '../request-scope';
import { echo } from '../wire';
import { Call } from '../pipeline/call';
import { type HandlerEnv, optionalObject, requireString } from './handler-env';

/** completion/complete for prompt arguments and resource template variables. */
export function completionHandlers(env: HandlerEnv): Record<string, MethodHandler> {
  return {
    'completion/complete': async (params, scope) => {
      const ref = optionalObject(params, 'ref');
      const argument = optionalObject(params, 'argument');
      if (!ref || !argument) throw McpError.invalidParams('Invalid params: "ref" and "argument" are required');
      const argName = requireString(argument, 'name');
      const value = requireString(argument, 'value');
      const resolved = (optionalObject(params, 'context')?.arguments ?? {}) as Record<string, string>;
      const { target, completer } = findCompleter(env, ref, argName);
      // Completing an argument of a prompt or template the caller may not use is refused like using it.
      if (target) await env.authorizer.assert(target, callerOf(scope.extra));
      if (!completer) return { completion: { values: [], hasMore: false } };
      return env.pipelines.run(new Call(completer, scope, argName, resolved, value, (ctx) => completionContext(ctx, resolved)));
    },
  };
}

function findCompleter(
  env: HandlerEnv,
  ref: Record<string, unknown>,
  argument: string,
): { target?: HandlerRef; completer?: CompleterDescriptor } {
  if (ref.type === 'ref/prompt') {
    const name = requireString(ref, 'name');
    const prompt = env.registry.prompt(name);
    if (!prompt) throw McpError.invalidParams(`Unknown prompt: ${echo(name)}`);
    return { target: prompt, completer: prompt.completers.get(argument) };
  }
  if (ref.type === 'ref/resource') {
    const uri = requireString(ref, 'uri');
    const template = env.registry.templateByPattern(uri);
    if (!template) {
      if (env.registry.resource(uri)) return {};
      throw McpError.invalidParams(`Unknown resource template: ${echo(uri)}`);
    }
    return { target: template, completer: template.completers.get(argument) };
  }
  throw McpError.invalidParams('Invalid params: ref.type must be "ref/prompt" or "ref/resource"');
}

function completionContext(ctx: McpContext, args: Record<string, string>): CompletionContext {
  const completion = Object.create(ctx) as CompletionContext & { arguments: Record<string, string> };
  Object.defineProperty(completion, 'arguments', { value: Object.freeze({ ...args }), enumerable: true });
  return completion;
}
