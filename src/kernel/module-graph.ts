import { InvalidModuleError } from '../errors/invalid-module.error';
import type { ClassType, Provider } from '../metadata/records';
import type { ExtensionSettings } from '../mcp/extensions';
import { mergeExtensions } from './declared-extensions';
import { moduleOptions, type ModuleOptions } from './module-options';

/** A module and everything it imports, flattened: providers in import order, the extensions of every module. */
export interface ModuleGraph {
  /** The root module's options, with `extensions` the union of every module's (checked). */
  readonly root: ModuleOptions;
  readonly providers: readonly Provider[];
}

export function resolveModuleGraph(rootModule: ClassType): ModuleGraph {
  const root = moduleOptions(rootModule);
  if (!root) throw new InvalidModuleError(`${rootModule?.name ?? String(rootModule)} is not decorated with @McpModule`);
  // Later registrations of a token win, so a module overrides what it imports.
  const providers = new Map<unknown, Provider>();
  const visited = new Set<ClassType>();
  const extensions: Record<string, ExtensionSettings> = {};
  const visit = (module: ClassType, path: string[]) => {
    if (visited.has(module)) return;
    visited.add(module);
    const options = moduleOptions(module);
    if (!options)
      throw new InvalidModuleError(
        `${path.join(' -> ')} imports ${module?.name ?? String(module)}, which is not decorated with @McpModule`,
      );
    for (const imported of options.imports ?? []) visit(imported, [...path, module.name]);
    mergeExtensions(extensions, `@McpModule of ${module.name}`, options.extensions);
    for (const provider of options.providers ?? []) {
      const token = typeof provider === 'function' ? provider : provider?.provide;
      if (token === undefined) throw new InvalidModuleError(`${module.name} lists a provider that is neither a class nor { provide, ... }`);
      providers.delete(token);
      providers.set(token, provider);
    }
  };
  visit(rootModule, []);
  return { root: { ...root, extensions }, providers: [...providers.values()] };
}
