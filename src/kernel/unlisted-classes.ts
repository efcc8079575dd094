import { metadataStore } from '../metadata/metadata-store';
import type { Provider } from '../metadata/records';
import { moduleOptions } from './module-options';

/**
 * Classes with handler decorators that no `@McpModule` lists among its providers (by class or as a
 * `useClass`), directly or through a subclass: their tools, resources and prompts would silently
 * never be served. Returns one warning per class.
 */
export function unlistedHandlerClassWarnings(): string[] {
  const listed: object[] = [];
  for (const module of metadataStore.moduleClasses()) {
    for (const provider of moduleOptions(module)?.providers ?? []) {
      const cls = providerClass(provider);
      if (cls) listed.push(cls);
    }
  }
  const warnings: string[] = [];
  for (const cls of metadataStore.handlerClasses()) {
    if (listed.some((l) => l === cls || (typeof l === 'function' && l.prototype instanceof (cls as new () => unknown)))) continue;
    const name = (cls as { name?: string }).name || 'an anonymous class';
    warnings.push(
      `${name} has @Tool/@Resource/@Prompt/@Complete methods but no @McpModule lists it in its providers, so none of them is served. ` +
        `Add ${name} to the providers of a module (or pass it to app.addProviders() if it is meant to come later).`,
    );
  }
  return warnings;
}

function providerClass(provider: Provider | undefined): object | undefined {
  if (typeof provider === 'function') return provider;
  if (provider && typeof provider === 'object' && 'useClass' in provider) return provider.useClass;
  return undefined;
}
