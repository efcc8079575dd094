import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import { metadataStore } from '../metadata/metadata-store';
import type { AccessRecord } from '../metadata/records';
import { describeMember, rejectStandardDecorator, requireMethodName } from './describe-target';

/** A decorator that applies to a class (all its handlers) or to one method. */
export type ClassOrMethodDecorator = ClassDecorator & MethodDecorator;

/** Records an access decorator where it was put: a class (target is the constructor) or a method. */
export function accessDecorator(
  decorator: string,
  check: (fail: (problem: string) => never) => void,
  record: AccessRecord,
): ClassOrMethodDecorator {
  return (target: object, member?: string | symbol) => {
    rejectStandardDecorator(decorator, member);
    const where = member === undefined ? ((target as { name?: string }).name ?? 'anonymous class') : describeMember(target, member);
    check((problem) => {
      throw new InvalidDecoratorOptionsError(decorator, where, problem);
    });
    if (member === undefined) metadataStore.addAccess(target, undefined, record);
    else metadataStore.addAccess(target.constructor, requireMethodName(decorator, target, member), record);
  };
}
