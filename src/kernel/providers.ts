import { type DependencyContainer, instancePerContainerCachingFactory, type InjectionToken, Lifecycle } from 'tsyringe';
import { DuplicatePeerPackageError } from '../errors/duplicate-peer-package.error';
import { UnresolvableProviderError } from '../errors/unresolvable-provider.error';
import { describePeerCopies, findPeerCopies } from './peer-copies';
import type { Provider } from '../metadata/records';
import type { ProviderEntry } from '../registry/registry.builder';
import { checkConstructorTokens } from './constructor-tokens';
import { InMemoryTaskStore } from '../tasks/in-memory.task-store';
import type { TaskStore } from '../tasks/task-store';
import type { TaskStoreOption } from './application-options';

/** How the `taskStore` option is registered under TASK_STORE (in-memory when absent): one store per application. */
export function taskStoreProvider(option: TaskStoreOption | undefined): { useFactory: (c: DependencyContainer) => TaskStore } {
  const make = (c: DependencyContainer): TaskStore => {
    if (option === undefined) return new InMemoryTaskStore();
    if (typeof option === 'function') return c.resolve(option as InjectionToken<TaskStore>);
    if ('useClass' in option) return c.resolve(option.useClass as InjectionToken<TaskStore>);
    if ('useValue' in option) return option.useValue;
    if ('useFactory' in option) return option.useFactory((t) => c.resolve(t as InjectionToken<never>));
    return option;
  };
  return { useFactory: instancePerContainerCachingFactory(make) };
}

/** Fails at bootstrap, not on the first call, when a provider cannot be constructed. */
export function resolveAll(container: DependencyContainer, entries: ProviderEntry[]): void {
  for (const entry of entries) {
    checkConstructorTokens(entry.cls);
    try {
      container.resolve(entry.token as InjectionToken<unknown>);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      // tsyringe's own wording names neither the provider nor a fix: "TypeInfo not known for X".
      const missing = /TypeInfo not known for "?([\w$]+)"?/.exec(detail)?.[1];
      // The usual cause after a folder or linked install: @injectable() wrote into another tsyringe.
      const copies = missing ? findPeerCopies().filter((c) => c.name === 'tsyringe') : [];
      if (copies.length > 0)
        throw new DuplicatePeerPackageError(`Cannot construct provider ${entry.cls.name} (${detail})`, describePeerCopies(copies));
      throw new UnresolvableProviderError(entry.cls.name, detail, missing);
    }
  }
}

/** Registers one provider in the application's container; class providers become registry entries. */
export function register(container: DependencyContainer, provider: Provider, transient: Set<unknown>): ProviderEntry | undefined {
  if (typeof provider === 'function') {
    container.register(provider, { useClass: provider }, { lifecycle: Lifecycle.ContainerScoped });
    return { token: provider, cls: provider };
  }
  const token = provider.provide as InjectionToken<unknown>;
  if ('useClass' in provider) {
    const lifecycle = provider.lifecycle === 'transient' ? Lifecycle.Transient : Lifecycle.ContainerScoped;
    if (lifecycle === Lifecycle.Transient) transient.add(token);
    container.register(token, { useClass: provider.useClass }, { lifecycle });
    return { token, cls: provider.useClass };
  }
  if ('useValue' in provider) {
    container.register(token, { useValue: provider.useValue });
    return undefined;
  }
  const factory = provider.useFactory;
  container.register(token, {
    useFactory: instancePerContainerCachingFactory((c) => factory((t) => c.resolve(t as InjectionToken<never>))),
  });
  return undefined;
}
