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
