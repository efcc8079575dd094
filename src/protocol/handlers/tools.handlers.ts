import { McpError } from '../../mcp/mcp.error';
import { ListViews } from '../list-views';
import { Paginator } from '../pagination';
import { callerOf } from '../authorizer';
import type { MethodHandler, RequestScope } from '../request-scope';
import type { ToolDescriptor } from '../../registry/descriptors';
import { echo } from '../wire';
import { type HandlerEnv, optionalObject, requireString } from './handler-env';
import { Call } from '../pipeline/call';
import { declaresUiExtension, withoutViewMetadata } from '../../views/view-metadata';
import { ToolSearch } from './tool-search';

/** tools/list and tools/call, and in search mode the search and call tools (see tool-search.ts). */
export function toolsHandlers(env: HandlerEnv): Record<string, MethodHandler> {
  const registry = env.registry;
  const pages = new Paginator(
    'tools',
    'tools',
    () => registry.toolDefinitions(),
    env.pageSize,
    () => registry.version,
  );
  const views = new ListViews(
    env.authorizer,
    () => registry.toolDescriptors(),
    () => registry.version,
  );
  // With views.metadata 'extension-clients', clients that did not declare MCP Apps get tools without view metadata.
  const plainPages = new Paginator(
    'tools',
    'tools',
    () => registry.toolDefinitions().map(withoutViewMetadata),
    env.pageSize,
    () => registry.version,
  );
  const search = env.toolSearch && new ToolSearch(env.toolSearch.options, registry, views, env.toolSearch);
  const run = (tool: ToolDescriptor, name: string, args: Record<string, unknown>, scope: RequestScope) =>
    env.pipelines.run(new Call(tool, scope, name, args));
  return {
    'tools/list': async (params, scope) => {
      if (search) return search.list(scope);
      const view = await views.view(callerOf(scope.extra));
      if (registry.viewMetadata !== 'extension-clients' || declaresUiExtension(scope.peer.clientCapabilities))
        return pages.page(params.cursor, view);
      return plainPages.page(params.cursor, view && { key: view.key, items: () => view.items().map(withoutViewMetadata) });
    },
    'tools/call': (params, scope) => {
      const name = requireString(params, 'name');
      const args = optionalObject(params, 'arguments') ?? {};
      if (search?.owns(name)) return search.call(name, args, scope, run);
      const tool = registry.tool(name);
      if (!tool) throw McpError.invalidParams(`Unknown tool: ${echo(name)}`);
      return run(tool, name, args, scope);
    },
  };
}
