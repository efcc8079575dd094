import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import type { GuardClass } from '../contracts/guard';
import { metadataStore } from '../metadata/metadata-store';
import type { AccessRecord } from '../metadata/records';
import type { HandlerAccess } from './descriptors';
import type { Middleware } from '../contracts/middleware';

/** What a handler is, as guards see it. */
export type AccessTarget = Pick<HandlerAccess, 'kind' | 'name' | 'annotations' | '_meta'>;

/**
 * Resolves a handler's requirements from the access records of its class and method: scopes are the
 * union of both levels, guards and middleware class-level first; `@Public` drops its level's (and, on
 * the method, the class's) scopes and guards. Contradictions on one level are definition errors.
 */
export function resolveAccess(cls: object, method: string, where: string, target: AccessTarget): HandlerAccess {
  const records = metadataStore.access(cls);
  const type = level(records.type, (cls as { name?: string }).name || 'anonymous class');
  const own = level(records.methods.get(method) ?? [], where);
  const applies = own.isPublic ? [own] : type.isPublic ? [own] : [type, own];
  const scopes = [...new Set(applies.flatMap((l) => l.scopes))].sort();
  const guards = [...new Set(applies.flatMap((l) => l.guards))];
  for (const guard of guards) {
    if (typeof (guard.prototype as Partial<Record<string, unknown>> | undefined)?.canActivate !== 'function') {
      throw new InvalidDecoratorOptionsError('UseGuards', where, `${guard.name || 'a guard'} has no canActivate method`);
    }
  }
  const middleware = [...type.middleware, ...own.middleware];
  return Object.freeze({
    ...target,
    scopes: Object.freeze(scopes),
    guards: Object.freeze(guards),
    public: own.isPublic || (type.isPublic && own.scopes.length === 0 && own.guards.length === 0),
    middleware: Object.freeze(middleware),
    restricted: scopes.length > 0 || guards.length > 0,
  });
}

interface Level {
  isPublic: boolean;
  scopes: string[];
  guards: GuardClass[];
  middleware: AccessRecord['middleware'] & object;
}

function level(records: readonly AccessRecord[], where: string): Level {
  const isPublic = records.some((r) => r.public);
  const scopes = records.flatMap((r) => r.scopes ?? []);
  const guards = records.flatMap((r) => r.guards ?? []);
  if (isPublic && scopes.length > 0)
    throw new InvalidDecoratorOptionsError('Public', where, 'cannot be combined with @RequireScopes on the same target');
  if (isPublic && guards.length > 0)
    throw new InvalidDecoratorOptionsError('Public', where, 'cannot be combined with @UseGuards on the same target');
  return { isPublic, scopes, guards, middleware: records.flatMap((r) => r.middleware ?? []) };
}

/** Access of a handler registered at runtime (no decorators): scopes, guards and middleware given as options. */
export interface AccessOptions {
  scopes?: string[];
  guards?: GuardClass[];
  middleware?: Middleware[];
}

/**
 * The requirements of a handler registered at runtime, checked like their decorator forms: scopes are
 * non-empty strings, each guard has a `canActivate` method, middleware are functions. `fail` makes
 * the named error for a problem.
 */
export function accessFromOptions(
  target: AccessTarget,
  { scopes = [], guards = [], middleware = [] }: AccessOptions,
  fail: (problem: string) => Error,
): HandlerAccess {
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || s.length === 0))
    throw fail('scopes must be a list of non-empty strings');
  if (
    !Array.isArray(guards) ||
    guards.some((g) => typeof (g as { prototype?: { canActivate?: unknown } })?.prototype?.canActivate !== 'function')
  )
    throw fail('guards must be classes with a canActivate method');
  if (!Array.isArray(middleware) || middleware.some((m) => typeof m !== 'function')) throw fail('middleware must be a list of functions');
  const sorted = [...new Set(scopes)].sort();
  return Object.freeze({
    ...target,
    scopes: Object.freeze(sorted),
    guards: Object.freeze([...new Set(guards)]),
    public: false,
    middleware: Object.freeze([...middleware]),
    restricted: sorted.length > 0 || guards.length > 0,
  });
}
