import type { ResourceDescriptor } from '../../registry/descriptors';
import { VIEW_MIME_TYPE } from '../../views/view.types';
import { McpError } from '../../mcp/mcp.error';
import type { ReadResourceResult } from '../../mcp/mcp-types';
import { Call, NO_INPUT } from '../pipeline/call';
import { ListViews } from '../list-views';
import { Paginator } from '../pagination';
import { callerOf } from '../authorizer';
import type { MethodHandler } from '../request-scope';
import { type HandlerEnv, requireString } from './handler-env';

/** resources/list, resources/templates/list and resources/read. */
export function resourcesHandlers(env: HandlerEnv): Record<string, MethodHandler> {
  const registry = env.registry;
  const version = () => registry.version;
  const resourcePages = new Paginator('resources', 'resources', () => registry.resourceDefinitions(), env.pageSize, version);
  const templatePages = new Paginator('templates', 'resourceTemplates', () => registry.templateDefinitions(), env.pageSize, version);
  const resourceViews = new ListViews(env.authorizer, () => registry.resourceDescriptors(), version);
  const templateViews = new ListViews(env.authorizer, () => registry.templateDescriptors(), version);
  return {
    'resources/list': async (params, scope) => resourcePages.page(params.cursor, await resourceViews.view(callerOf(scope.extra))),
    'resources/templates/list': async (params, scope) => templatePages.page(params.cursor, await templateViews.view(callerOf(scope.extra))),
    'resources/subscribe': async (params, scope) => {
      const uri = requireString(params, 'uri');
      const target = registry.resource(uri) ?? registry.matchTemplate(uri)?.descriptor;
      if (!target) throw McpError.resourceNotFound(uri);
      await env.authorizer.assert(target, callerOf(scope.extra));
      await target.watch?.(uri);
      scope.session?.subscribe(uri);
      return {};
    },
    'resources/unsubscribe': (params, scope) => {
      scope.session?.unsubscribe(requireString(params, 'uri'));
      return {};
    },
    'resources/read': async (params, scope) => {
      const uri = requireString(params, 'uri');
      const resource = env.registry.resource(uri);
      if (resource) {
        if (resource.cache) scope.setCacheHint?.(resource.cache);
        if (resource.view) {
          // A view is HTML mcpkit serves, not a call of a handler: the caller's access is all there is to check.
          await env.authorizer.assert(resource, callerOf(scope.extra));
          return readView(resource.view, uri);
        }
        return env.pipelines.run(new Call(resource, scope, uri, NO_ARGUMENTS, NO_INPUT));
      }
      const match = env.registry.matchTemplate(uri);
      if (!match) throw McpError.resourceNotFound(uri);
      if (match.descriptor.cache) scope.setCacheHint?.(match.descriptor.cache);
      return env.pipelines.run(new Call(match.descriptor, scope, uri, match.variables));
    },
  };
}

const NO_ARGUMENTS: Readonly<Record<string, unknown>> = Object.freeze({});

/** A `@View`'s contents: its HTML as `text/html;profile=mcp-app`, with the view's `_meta.ui`. */
async function readView(view: NonNullable<ResourceDescriptor['view']>, uri: string): Promise<ReadResourceResult> {
  const { html } = await view.content.read();
  return { contents: [{ uri, mimeType: VIEW_MIME_TYPE, text: html, ...(view.ui ? { _meta: { ui: view.ui } } : {}) }] };
}
