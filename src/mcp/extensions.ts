/**
 * Extensions (2026-07-28 "Extension Negotiation", also honoured in handshake sessions): each party lists
 * the extensions it supports under `capabilities.extensions`, a map of identifiers to settings objects.
 */

/** An extension's settings: a JSON object (`{}` says "supported, no settings"). */
export type ExtensionSettings = Readonly<Record<string, unknown>>;

/** Extension identifiers to their settings. */
export type Extensions = Readonly<Record<string, ExtensionSettings>>;

const LABEL = '[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const NAME = '[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?';
/** The `_meta` key naming rules with the prefix made mandatory: `com.example/name`. */
const EXTENSION_ID = new RegExp(`^${LABEL}(?:\\.${LABEL})*/${NAME}$`);

/** Why `id` is not a valid extension identifier, or undefined when it is. */
export function extensionIdProblem(id: string): string | undefined {
  if (!id.includes('/'))
    return `"${id}" has no prefix (an extension identifier is "<reverse-dns prefix>/<name>", e.g. "com.example/thing")`;
  if (!EXTENSION_ID.test(id))
    return `"${id}" does not follow the _meta key naming rules (dot-separated labels of letters, digits and hyphens, a slash, then a name)`;
  return undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The extensions declared in a capabilities object (entries whose settings are not objects are dropped). */
export function extensionsOf(capabilities: object | undefined): Extensions {
  const declared = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  if (!isObject(declared)) return {};
  const result: Record<string, ExtensionSettings> = {};
  for (const [id, settings] of Object.entries(declared)) if (isObject(settings)) result[id] = settings;
  return result;
}

/** True when the capabilities declare the extension `id`. */
export function declaresExtension(capabilities: object | undefined, id: string): boolean {
  const declared = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  return isObject(declared) && isObject(declared[id]);
}
