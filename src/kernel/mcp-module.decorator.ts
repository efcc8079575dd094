import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import { metadataStore } from '../metadata/metadata-store';
import { rejectStandardDecorator } from '../decorators/describe-target';
import type { ModuleOptions } from './module-options';

/** Declares a module: server information, the providers that hold tools, resources and prompts, and imports. */
export function McpModule(options: ModuleOptions): ClassDecorator {
  return (target, ...standard: unknown[]) => {
    // A standard (TC39) decorator gets a context object second: refused, with the tsconfig that fixes it.
    rejectStandardDecorator('McpModule', standard[0]);
    if (options.providers !== undefined && !Array.isArray(options.providers)) {
      throw new InvalidDecoratorOptionsError('McpModule', target.name, '`providers` must be an array');
    }
    if (options.imports !== undefined && !Array.isArray(options.imports)) {
      throw new InvalidDecoratorOptionsError('McpModule', target.name, '`imports` must be an array');
    }
    metadataStore.setModule(target, { ...options });
  };
}
