import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import { metadataStore } from '../metadata/metadata-store';
import type { CompleteOptions } from '../metadata/records';
import { describeMember, requireMethodName, rejectStandardDecorator } from './describe-target';

/**
 * Completes one argument of a prompt (`{ prompt, argument }`) or one variable of a resource template
 * (`{ resource: template, argument }`). The method receives the partial value and a context whose
 * `arguments` holds the arguments already resolved; it returns strings or a full completion.
 */
export function Complete(options: CompleteOptions): MethodDecorator {
  return (target, member) => {
    rejectStandardDecorator('Complete', member);
    const method = requireMethodName('Complete', target, member);
    const where = describeMember(target, member);
    if (typeof options?.argument !== 'string' || options.argument.length === 0) {
      throw new InvalidDecoratorOptionsError('Complete', where, '`argument` must be a non-empty string');
    }
    if ((typeof options.prompt === 'string') === (typeof options.resource === 'string')) {
      throw new InvalidDecoratorOptionsError('Complete', where, 'give exactly one of `prompt` or `resource`');
    }
    metadataStore.addComplete(target.constructor, { method, options: { ...options } });
  };
}
