import { isStandardDecoratorContext, StandardDecoratorsError } from '../errors/standard-decorators.error';

/** "Class.member", for error messages. */
export function describeMember(target: object, member: string | symbol): string {
  const ctor = typeof target === 'function' ? target : target.constructor;
  return `${(ctor as { name?: string }).name ?? 'anonymous class'}.${String(member)}`;
}

export function requireMethodName(decorator: string, target: object, member: string | symbol): string {
  if (typeof member !== 'string') {
    throw new TypeError(`@${decorator} on ${describeMember(target, member)}: symbol-named methods are not supported`);
  }
  return member;
}

/**
 * Refuses a call as a standard (TC39) decorator, `(value, context)`, which code compiled without
 * `experimentalDecorators` makes: the error shows the tsconfig that fixes it.
 */
export function rejectStandardDecorator(decorator: string, second: unknown): void {
  if (!isStandardDecoratorContext(second)) return;
  const name = typeof second.name === 'string' ? second.name : 'anonymous';
  throw new StandardDecoratorsError(decorator, `${second.kind} ${name}`);
}
