import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import { metadataStore } from '../metadata/metadata-store';
import type { ResourceOptions } from '../metadata/records';
import { describeMember, requireMethodName, rejectStandardDecorator } from './describe-target';

/**
 * Exposes a method as a resource: a fixed `uri`, or an RFC 6570 `uriTemplate` whose variables the
 * method receives as its first argument.
 */
export function Resource(options: ResourceOptions): MethodDecorator {
  return (target, member) => {
    rejectStandardDecorator('Resource', member);
    const method = requireMethodName('Resource', target, member);
    const hasUri = typeof options?.uri === 'string' && options.uri.length > 0;
    const hasTemplate = typeof options?.uriTemplate === 'string' && options.uriTemplate.length > 0;
    if (hasUri === hasTemplate) {
      throw new InvalidDecoratorOptionsError('Resource', describeMember(target, member), 'give exactly one of `uri` or `uriTemplate`');
    }
    metadataStore.addResource(target.constructor, { method, options: { ...options } });
  };
}
