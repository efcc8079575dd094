import { McpError } from '../../mcp/mcp.error';
import { ListViews } from '../list-views';
import { Paginator } from '../pagination';
import { callerOf } from '../authorizer';
import type { MethodHandler, RequestScope } from '../request-scope';
import type { ToolDescriptor } from '../../registry/descriptors';
import { echo } from '../wire';
import { type HandlerEnv, optionalObject, requireString } from './handler-env';
import { TASKS_EXTENSION } from '../../mcp/eras';
import { missingCapability } from '../per-request/envelope';
import { checkParamHeaders, paramHeadersOf } from '../../schema/mcp-header';
import { declaresUiExtension, withoutViewMetadata } from '../../views/view-metadata';

/** tools/list and tools/call. */
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
  return {
    'tools/list': async (params, scope) => {
      const view = await views.view(callerOf(scope.extra));
      if (registry.viewMetadata !== 'extension-clients' || declaresUiExtension(scope.peer.clientCapabilities))
        return pages.page(params.cursor, view);
      return plainPages.page(params.cursor, view && { key: view.key, items: () => view.items().map(withoutViewMetadata) });
    },
    'tools/call': async (params, scope) => {
      const name = requireString(params, 'name');
      const args = optionalObject(params, 'arguments');
      const tool = env.registry.tool(name);
      if (!tool) throw McpError.invalidParams(`Unknown tool: ${echo(name)}`);
      // Before validation and before a task is created: a forbidden call is a JSON-RPC error.
      await env.authorizer.assert(tool, callerOf(scope.extra));
      // Before the policies too: a cached or replayed answer is no answer to headers that contradict the call.
      checkHeaders(tool, args, scope);
      return env.policies.admit(tool, { name, arguments: args ?? {} }, scope, async () => callTool(env, tool, args, params, scope));
    },
  };
}

/** Per-request era over HTTP: the Mcp-Param-* headers of x-mcp-header properties must match the arguments. */
function checkHeaders(tool: ToolDescriptor, args: Record<string, unknown> | undefined, scope: RequestScope): void {
  const headers = scope.peer.perRequest ? scope.extra?.headers : undefined;
  const mismatch = headers && checkParamHeaders(paramHeadersOf(tool.definition.inputSchema), args, headers);
  if (mismatch) throw mismatch;
}

/** tools/call once the caller may use the tool: a feature may take it over (tasks), else the tool runs. */
function callTool(
  env: HandlerEnv,
  tool: ToolDescriptor,
  args: Record<string, unknown> | undefined,
  params: Record<string, unknown>,
  scope: RequestScope,
): unknown {
  const era = scope.peer.perRequest ? 'per-request' : 'handshake';
  // A feature may take the call over (tasks: in the per-request era, the tasks extension).
  if (env.features.length > 0) {
    const caps = env.capabilities();
    for (const feature of env.features) {
      const taken = feature.eras[era]?.interceptToolCall?.({ tool, args, params, scope }, caps[feature.capability] !== undefined);
      if (taken !== undefined) return taken;
    }
  }
  if (era === 'per-request' && tool.taskSupport === 'required')
    throw missingCapability(
      { extensions: { [TASKS_EXTENSION]: {} } },
      `the tasks extension ${TASKS_EXTENSION} (tool "${tool.name}" runs only as a task)`,
    );
  return env.tools.call(tool, args, scope);
}
