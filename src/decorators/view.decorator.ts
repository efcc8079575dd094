import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import { viewRecords } from '../views/view-records';
import type { ViewOptions } from '../views/view.types';
import { rejectStandardDecorator } from './describe-target';

/**
 * Declares an interactive view (MCP Apps): an HTML resource at a `ui://` URI that tools name with
 * `@Tool({ ui: ViewClass })`. List the class among the module's providers; its options are checked at bootstrap.
 */
export function View(options: ViewOptions): ClassDecorator {
  return (target, ...standard: unknown[]) => {
    // A standard (TC39) decorator gets a context object second: refused, with the tsconfig that fixes it.
    rejectStandardDecorator('View', standard[0]);
    if (typeof options !== 'object' || options === null || typeof options.uri !== 'string') {
      throw new InvalidDecoratorOptionsError('View', target.name, 'give at least `uri` and `html`');
    }
    viewRecords.set(target, { ...options });
  };
}
