import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import { InvalidViewError, MissingTextFallbackError, UnknownViewError } from '../errors/view-definition.error';
import type { ResourceDefinition } from '../mcp/mcp-types';
import { ViewContent } from '../views/view-content';
import { viewRecords } from '../views/view-records';
import { VIEW_MIME_TYPE, type ToolUi, type ToolVisibility, type ViewOptions } from '../views/view.types';

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'];
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'];
const VISIBILITY: readonly ToolVisibility[] = ['model', 'app'];
/** An origin as CSP source lists take it: scheme, host (optionally `*.` for subdomains), optional port; no path. */
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/i;

export interface BuiltView {
  readonly definition: ResourceDefinition;
  /** `_meta.ui` of the resource (also sent with its contents), when it has any member. */
  readonly ui?: Readonly<Record<string, unknown>>;
  readonly content: ViewContent;
}

/** The view declared on a provider class, checked, or undefined when the class is not a view. */
export function readView(cls: object, where: string): (BuiltView & { options: ViewOptions }) | undefined {
  const options = viewRecords.get(cls);
  if (!options) return undefined;
  if (!/^ui:\/\/[^/\s]/.test(options.uri))
    throw new InvalidViewError(where, `uri "${options.uri}" must use the ui:// scheme (ui://<server>/<view>)`);
  const html = options.html;
  if (typeof html === 'object' && html !== null) {
    if (typeof html.file !== 'string' || !existsSync(resolve(html.file)))
      throw new InvalidViewError(where, `html file "${String(html.file)}" does not exist`);
  } else if (typeof html !== 'string' && typeof html !== 'function') {
    throw new InvalidViewError(where, 'html must be a string, { file } or a function returning the document');
  }
  const ui: Record<string, unknown> = {};
  if (options.csp !== undefined) ui.csp = checkedCsp(where, options.csp as Record<string, unknown>);
  if (options.permissions !== undefined) {
    const unknown = Object.keys(options.permissions).filter((k) => !PERMISSIONS.includes(k));
    if (unknown.length > 0)
      throw new InvalidViewError(where, `unknown permission ${unknown.join(', ')} (known: ${PERMISSIONS.join(', ')})`);
    ui.permissions = structuredClone(options.permissions);
  }
  if (options.domain !== undefined) {
    if (typeof options.domain !== 'string' || options.domain.length === 0)
      throw new InvalidViewError(where, 'domain must be a non-empty string');
    ui.domain = options.domain;
  }
  if (options.prefersBorder !== undefined) {
    if (typeof options.prefersBorder !== 'boolean') throw new InvalidViewError(where, 'prefersBorder must be a boolean');
    ui.prefersBorder = options.prefersBorder;
  }
  const hasUi = Object.keys(ui).length > 0;
  const definition: ResourceDefinition = {
    uri: options.uri,
    name: options.name ?? (cls as { name: string }).name,
    mimeType: VIEW_MIME_TYPE,
  };
  if (options.title !== undefined) definition.title = options.title;
  if (options.description !== undefined) definition.description = options.description;
  if (hasUi) definition._meta = { ui };
  return { options, definition, ui: hasUi ? ui : undefined, content: new ViewContent(html) };
}

function checkedCsp(where: string, csp: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(csp)) {
    if (!CSP_KEYS.includes(key)) throw new InvalidViewError(where, `unknown csp entry "${key}" (known: ${CSP_KEYS.join(', ')})`);
    if (!Array.isArray(value)) throw new InvalidViewError(where, `csp.${key} must be an array of origins`);
    for (const origin of value) {
      if (typeof origin !== 'string' || !ORIGIN.test(origin)) {
        throw new InvalidViewError(
          where,
          `csp.${key} entry ${JSON.stringify(origin)} is not an origin (scheme://host[:port], e.g. https://api.example.com or https://*.example.com)`,
        );
      }
    }
    out[key] = [...(value as string[])];
  }
  return out;
}

/**
 * The `_meta` members a tool's `ui` option adds: `ui.resourceUri` with `ui.visibility`, and the older
 * flat `ui/resourceUri`. `views` maps each view class listed among the providers to its URI.
 */
export function toolViewMeta(where: string, ui: ToolUi, views: ReadonlyMap<unknown, string>, hasOutput: boolean): Record<string, unknown> {
  const spec = typeof ui === 'function' ? { view: ui } : ui;
  if (typeof spec !== 'object' || spec === null || typeof spec.view !== 'function') {
    throw new InvalidDecoratorOptionsError('Tool', where, 'ui must be a view class or { view, visibility?, fallback? }');
  }
  const uri = views.get(spec.view);
  if (uri === undefined) {
    const declared = viewRecords.get(spec.view) !== undefined;
    throw new UnknownViewError(
      where,
      `ui names ${spec.view.name || 'a class'}, which ${declared ? 'is a @View but is not listed among the providers' : 'is not decorated with @View'}`,
    );
  }
  const visibility = spec.visibility ?? [...VISIBILITY];
  if (
    !Array.isArray(visibility) ||
    visibility.length === 0 ||
    visibility.some((v) => !VISIBILITY.includes(v)) ||
    new Set(visibility).size !== visibility.length
  ) {
    throw new InvalidDecoratorOptionsError(
      'Tool',
      where,
      `ui.visibility must be a non-empty list of distinct "model" and "app", not ${JSON.stringify(visibility)}`,
    );
  }
  const fallback = spec.fallback ?? 'output';
  if (fallback !== 'output' && fallback !== 'handler')
    throw new InvalidDecoratorOptionsError('Tool', where, `ui.fallback must be 'output' or 'handler'`);
  if (fallback === 'output' && !hasOutput) throw new MissingTextFallbackError(where);
  return { ui: { resourceUri: uri, visibility: [...visibility] }, 'ui/resourceUri': uri };
}
