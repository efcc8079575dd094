import { InvalidModuleError } from '../errors/invalid-module.error';
import { metadataStore } from '../metadata/metadata-store';
import type { ClassType, ModuleOptions, Provider } from '../metadata/records';

/** A module and everything it imports, flattened: providers in import order. */
export interface ModuleGraph {
  readonly root: ModuleOptions;
  readonly providers: readonly Provider[];
}

export function resolveModuleGraph(rootModule: ClassType): ModuleGraph {
  const root = metadataStore.module(rootModule);
  if (!root) throw new InvalidModuleError(`${rootModule?.name ?? String(rootModule)} is not decorated with @McpModule`);
  // Later registrations of a token win, so a module overrides what it imports.
  const providers = new Map<unknown, Provider>();
  const visited = new Set<ClassType>();
  const visit = (module: ClassType, path: string[]) => {
    if (visited.has(module)) return;
    visited.add(module);
    const options = metadataStore.module(module);
    if (!options) throw new InvalidModuleError(`${path.join(' -> ')} imports ${module?.name ?? String(module)}, which is not decorated with @McpModule`);
    for (const imported of options.imports ?? []) visit(imported, [...path, module.name]);
    for (const provider of options.providers ?? []) {
      const token = typeof provider === 'function' ? provider : provider?.provide;
      if (token === undefined) throw new InvalidModuleError(`${module.name} lists a provider that is neither a class nor { provide, ... }`);
      providers.delete(token);
      providers.set(token, provider);
    }
  };
  visit(rootModule, []);
  return { root, providers: [...providers.values()] };
}
