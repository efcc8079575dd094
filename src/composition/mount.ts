import { InvalidDefinitionError } from '../errors/invalid-definition.error';
import type { Call } from '../protocol/pipeline/call';
import type { Invocation } from '../contracts/middleware';
import type { Contribution } from '../registry/contribution';
import { deepFreeze } from '../registry/definition-utils';
import type {
  CompleterDescriptor,
  HandlerRef,
  PromptDescriptor,
  ResourceDescriptor,
  TemplateDescriptor,
  ToolDescriptor,
} from '../registry/descriptors';
import type { Registry } from '../registry/registry';
import { UriTemplate } from '../registry/uri-template';

/**
 * Mount prefixes: letters, digits, `_` and `-` (they become part of tool names and URIs). The empty
 * prefix serves names and URIs unchanged (collisions are still refused by the registry builder).
 */
const PREFIX = /^([A-Za-z0-9][A-Za-z0-9_-]{0,63})?$/;

export function checkPrefix(prefix: string, what: string): void {
  if (typeof prefix !== 'string' || !PREFIX.test(prefix))
    throw new InvalidDefinitionError(
      `${what} "${String(prefix)}"`,
      'the prefix must be empty or 1-64 characters of A-Z a-z 0-9 _ - (not starting with _ or -)',
    );
}

/** How a mounted name reads: `weather_forecast` for tool `forecast` under `weather`; unchanged under ''. */
export const prefixedName = (prefix: string, name: string) => (prefix === '' ? name : `${prefix}_${name}`);

/**
 * How a mounted URI reads: the prefix comes first after the scheme (`notes://index` under `work` →
 * `notes://work/index`), or first in the path when the authority is empty (`file:///a` → `file:///work/a`);
 * unchanged under ''.
 */
export function prefixedUri(prefix: string, uri: string): string {
  if (prefix === '') return uri;
  const match = /^([A-Za-z][A-Za-z0-9+.-]*:)(\/\/)?(.*)$/s.exec(uri);
  if (!match) return `${prefix}/${uri}`;
  const [, scheme, slashes = '', rest] = match;
  if (slashes && rest.startsWith('/')) return `${scheme}///${prefix}${rest}`;
  return `${scheme}${slashes}${prefix}/${rest}`;
}

/** The URI a mounted one stands for (the inverse of `prefixedUri`). */
export function unprefixedUri(prefix: string, uri: string): string {
  if (prefix === '') return uri;
  const match = /^([A-Za-z][A-Za-z0-9+.-]*:)(\/\/)?(.*)$/s.exec(uri);
  const [scheme, slashes, rest] = match ? [match[1], match[2] ?? '', match[3]] : ['', '', uri];
  if (slashes && rest.startsWith(`/${prefix}/`)) return `${scheme}//${rest.slice(prefix.length + 1)}`;
  return rest.startsWith(`${prefix}/`) ? `${scheme}${slashes}${rest.slice(prefix.length + 1)}` : uri;
}

/** A subscription hook of a mounted resource: the mounted application is told its own URI. */
const watchVia = (prefix: string, watch: ((uri: string) => Promise<void>) | undefined) =>
  watch && ((uri: string) => watch(unprefixedUri(prefix, uri)));

/**
 * The surface of another application's registry under a prefix: tools and prompts renamed, resources
 * and templates moved under the prefix. A call passes the mounting application's pipeline (its
 * authorization, policies, tasks, validation and middleware), then the handler's own application runs
 * it (its middleware, the handler's `@UseMiddleware`, its container). Definitions are copied once per
 * call; names that would collide are refused by the registry builder when the contribution is merged.
 */
export function mountedContribution(prefix: string, registry: Registry, runOwn: (call: Call) => Promise<unknown>): Contribution {
  const via = <T extends HandlerRef>(ref: T, changes: Partial<T>): T => ({
    ...ref,
    ...changes,
    // The handler's own middleware runs in its own application (runOwn), not again in the mounting one's.
    access: Object.freeze({ ...ref.access, middleware: Object.freeze([]) }),
    where: `${ref.where} (mounted at ${prefix})`,
    run: (_args: unknown[], call: Invocation) => runOwn((call as Call).of(ref)),
  });
  const completers = (map: ReadonlyMap<string, CompleterDescriptor>) => new Map([...map].map(([k, c]) => [k, via(c, {})]));
  const tools: ToolDescriptor[] = registry.toolDescriptors().map((t) => {
    const name = prefixedName(prefix, t.name);
    return via(t, { name, definition: deepFreeze({ ...t.definition, name, ...withViewUri(prefix, t.definition._meta) }) });
  });
  const resources: ResourceDescriptor[] = registry.resourceDescriptors().map((r) => {
    const uri = prefixedUri(prefix, r.uri);
    return via(r, {
      uri,
      definition: deepFreeze({ ...r.definition, uri, name: prefixedName(prefix, r.definition.name) }),
      watch: watchVia(prefix, r.watch),
    });
  });
  const templates: TemplateDescriptor[] = registry.templateDescriptors().map((t) => {
    const template = new UriTemplate(prefixedUri(prefix, t.template.template));
    const definition = deepFreeze({ ...t.definition, uriTemplate: template.template, name: prefixedName(prefix, t.definition.name) });
    return via(t, { template, definition, completers: completers(t.completers), watch: watchVia(prefix, t.watch) });
  });
  const prompts: PromptDescriptor[] = registry.promptDescriptors().map((p) => {
    const name = prefixedName(prefix, p.name);
    return via(p, { name, definition: deepFreeze({ ...p.definition, name }), completers: completers(p.completers) });
  });
  return { tools, resources, templates, prompts };
}

/** A tool's view (`_meta.ui.resourceUri`) moves with the mounted resources. */
function withViewUri(prefix: string, meta: Readonly<Record<string, unknown>> | undefined): { _meta?: Record<string, unknown> } {
  const ui = meta?.ui as Record<string, unknown> | undefined;
  if (typeof ui?.resourceUri !== 'string') return {};
  const resourceUri = prefixedUri(prefix, ui.resourceUri);
  const legacy = typeof meta?.['ui/resourceUri'] === 'string' ? { 'ui/resourceUri': resourceUri } : {};
  return { _meta: { ...meta, ...legacy, ui: { ...ui, resourceUri } } };
}
