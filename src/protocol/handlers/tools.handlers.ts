import { McpError } from '../../mcp/mcp.error';
import { Paginator } from '../pagination';
import type { MethodHandler } from '../request-scope';
import { echo } from '../wire';
import { HandlerEnv, optionalObject, requireString } from './handler-env';

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
      if (env.features.length > 0) {
        const caps = env.capabilities();
        for (const feature of env.features) {
          const taken = feature.interceptToolCall?.({ tool, args, params, scope }, caps[feature.capability] !== undefined);
          if (taken !== undefined) return taken;
        }
      }
      return env.tools.call(tool, args, scope);
    },
  };
}
