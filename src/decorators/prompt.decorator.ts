import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import { metadataStore } from '../metadata/metadata-store';
import type { PromptOptions } from '../metadata/records';
import { describeMember, requireMethodName, rejectStandardDecorator } from './describe-target';

/** Exposes a method as a prompt. Its arguments come from the class of the method's first parameter. */
export function Prompt(options: PromptOptions = {}): MethodDecorator {
  return (target, member) => {
    rejectStandardDecorator('Prompt', member);
    const method = requireMethodName('Prompt', target, member);
    if (options.name !== undefined && (typeof options.name !== 'string' || options.name.length === 0)) {
      throw new InvalidDecoratorOptionsError('Prompt', describeMember(target, member), 'name must be a non-empty string');
    }
    metadataStore.addPrompt(target.constructor, { method, options: { ...options } });
  };
}
