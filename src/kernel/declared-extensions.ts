import { InvalidExtensionError } from '../errors/invalid-extension.error';
import { extensionIdProblem, type ExtensionSettings, type Extensions } from '../mcp/extensions';

/** The `extensions` option as given by `where`, checked: identifiers per the `_meta` key rules, settings JSON objects. */
export function checkedExtensions(where: string, declared: unknown): Extensions {
  if (declared === undefined) return {};
  if (typeof declared !== 'object' || declared === null || Array.isArray(declared)) {
    throw new InvalidExtensionError(where, '`extensions` must be an object of extension identifiers to settings objects');
  }
  const result: Record<string, ExtensionSettings> = {};
  for (const [id, settings] of Object.entries(declared)) {
    const problem = extensionIdProblem(id);
    if (problem) throw new InvalidExtensionError(where, problem);
    if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
      throw new InvalidExtensionError(where, `the settings of "${id}" must be an object ({} when it has none)`);
    }
    let json: string | undefined;
    try {
      json = JSON.stringify(settings);
    } catch {
      json = undefined;
    }
    if (json === undefined) throw new InvalidExtensionError(where, `the settings of "${id}" must be JSON`);
    result[id] = JSON.parse(json) as ExtensionSettings;
  }
  return result;
}

/**
 * Adds the extensions `where` declares to those declared so far. Two modules may declare the same
 * extension only with the same settings: which settings a client sees must not depend on import order.
 */
export function mergeExtensions(declared: Record<string, ExtensionSettings>, where: string, added: unknown): void {
  for (const [id, settings] of Object.entries(checkedExtensions(where, added))) {
    const before = declared[id];
    if (before !== undefined && JSON.stringify(before) !== JSON.stringify(settings)) {
      throw new InvalidExtensionError(where, `"${id}" is also declared by another module, with other settings`);
    }
    declared[id] = settings;
  }
}
