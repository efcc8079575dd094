import type { ResourceDescriptor, TemplateDescriptor } from '../../registry/descriptors';
import { VIEW_MIME_TYPE } from '../../views/view.types';
import type { UriVariables } from '../../registry/uri-template';
import { validateInput } from '../../validation/validate-input';
import { McpError } from '../../mcp/mcp.error';
import type { ReadResourceResult, ResourceContents } from '../../mcp/mcp-types';
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
      const ctx = scope.context();
      const resource = env.registry.resource(uri);
      if (resource) {
        await env.authorizer.assert(resource, callerOf(scope.extra));
        if (resource.cache) scope.setCacheHint?.(resource.cache);
        if (resource.view) return readView(resource.view, uri);
        return env.policies.admit(resource, { name: uri, arguments: {} }, scope, async () =>
          mapResourceResult(await env.invoke(resource, [ctx]), uri, resource.definition.mimeType),
        );
      }
      const match = env.registry.matchTemplate(uri);
      if (!match) throw McpError.resourceNotFound(uri);
      await env.authorizer.assert(match.descriptor, callerOf(scope.extra));
      if (match.descriptor.cache) scope.setCacheHint?.(match.descriptor.cache);
      return env.policies.admit(match.descriptor, { name: uri, arguments: match.variables }, scope, async () => {
        const variables = await checkVariables(match.descriptor, match.variables);
        const value = await env.invoke(match.descriptor, match.descriptor.contextFirst ? [ctx] : [variables, ctx]);
        return mapResourceResult(value, uri, match.descriptor.definition.mimeType);
      });
    },
  };
}

/** A `@View`'s contents: its HTML as `text/html;profile=mcp-app`, with the view's `_meta.ui`. */
async function readView(view: NonNullable<ResourceDescriptor['view']>, uri: string): Promise<ReadResourceResult> {
  const { html } = await view.content.read();
  return { contents: [{ uri, mimeType: VIEW_MIME_TYPE, text: html, ...(view.ui ? { _meta: { ui: view.ui } } : {}) }] };
}

async function checkVariables(template: TemplateDescriptor, variables: UriVariables): Promise<unknown> {
  if (!template.params) return variables;
  const checked = await validateInput(template.params, variables);
  if (!checked.ok) throw McpError.invalidParams(`Invalid URI variables for "${template.template.template}": ${checked.issues.join('; ')}`);
  return checked.value;
}

function isContents(value: unknown): value is ResourceContents {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.uri === 'string' && (typeof v.text === 'string' || typeof v.blob === 'string');
}

/**
 * Maps what a resource handler returned: a ReadResourceResult or contents pass through; a string is
 * text, bytes are a base64 blob, and any other value is sent as JSON.
 */
function mapResourceResult(value: unknown, uri: string, mimeType: string | undefined): ReadResourceResult {
  if (typeof value === 'object' && value !== null && Array.isArray((value as ReadResourceResult).contents)) {
    return value as ReadResourceResult;
  }
  if (isContents(value)) return { contents: [value] };
  if (Array.isArray(value) && value.length > 0 && value.every(isContents)) return { contents: value };
  const withType = (c: ResourceContents): ResourceContents => (mimeType ? { ...c, mimeType } : c);
  if (typeof value === 'string') return { contents: [withType({ uri, text: value })] };
  if (value instanceof Uint8Array) return { contents: [withType({ uri, blob: Buffer.from(value).toString('base64') })] };
  return { contents: [{ uri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(value ?? null) }] };
}
