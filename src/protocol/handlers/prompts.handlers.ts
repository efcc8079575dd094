import { McpError } from '../../mcp/mcp.error';
import { ListViews } from '../list-views';
import { Paginator } from '../pagination';
import { callerOf } from '../authorizer';
import type { MethodHandler } from '../request-scope';
import { echo } from '../wire';
import { type HandlerEnv, optionalObject, requireString } from './handler-env';
import { Call } from '../pipeline/call';

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
    'prompts/get': (params, scope) => {
      const name = requireString(params, 'name');
      const prompt = env.registry.prompt(name);
      if (!prompt) throw McpError.invalidParams(`Unknown prompt: ${echo(name)}`);
      return env.pipelines.run(new Call(prompt, scope, name, optionalObject(params, 'arguments') ?? {}));
    },
  };
}
