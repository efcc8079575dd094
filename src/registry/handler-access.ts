import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import type { GuardClass } from '../contracts/guard';
import { metadataStore } from '../metadata/metadata-store';
import type { AccessRecord } from '../metadata/records';
import type { HandlerAccess } from './descriptors';
import type { Middleware } from '../contracts/middleware';
import type { HandlerPolicies } from '../contracts/policies';
import type { ToolAnnotations } from '../mcp/mcp-types';
import { policiesProblem } from '../decorators/policy-checks';

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
  const policies = ownPolicies(target, [...records.type, ...(records.methods.get(method) ?? [])], (problem) => {
    throw new InvalidDecoratorOptionsError(problem.decorator, where, problem.text);
  });
  return Object.freeze({
    ...target,
    scopes: Object.freeze(scopes),
    guards: Object.freeze(guards),
    public: own.isPublic || (type.isPublic && own.scopes.length === 0 && own.guards.length === 0),
    middleware: Object.freeze(middleware),
    restricted: scopes.length > 0 || guards.length > 0,
    policies,
  });
}

/** Calls a policy applies to: not completions or custom methods. */
const GUARDED_KINDS: ReadonlySet<AccessTarget['kind']> = new Set(['tool', 'resource', 'template', 'prompt']);

/**
 * The policies of a handler from its records, class-level first: a later record's policy replaces an
 * earlier one, except rate limits, which add up. Checked against what the handler is.
 */
function ownPolicies(
  target: AccessTarget,
  records: readonly AccessRecord[],
  fail: (problem: { decorator: string; text: string }) => never,
): HandlerPolicies | undefined {
  const given = records.map((r) => r.policies).filter((p): p is HandlerPolicies => p !== undefined);
  if (given.length === 0 || !GUARDED_KINDS.has(target.kind)) return undefined;
  const limits = given.flatMap((p) => listOf(p.rateLimit));
  const merged: HandlerPolicies = given.reduce<HandlerPolicies>((all, p) => ({ ...all, ...p }), {});
  if (limits.length > 0) merged.rateLimit = limits;
  else delete merged.rateLimit;
  const problem = targetProblem(target, merged);
  if (problem) fail(problem);
  return Object.freeze(merged);
}

function listOf<T>(value: T | readonly T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? [...(value as T[])] : [value as T];
}

/** Policies that do not fit the handler: idempotency is for tools, caching for what only reads. */
function targetProblem(target: AccessTarget, policies: HandlerPolicies): { decorator: string; text: string } | undefined {
  if (policies.idempotent && target.kind !== 'tool')
    return { decorator: 'Idempotent', text: 'applies to tools only (reads are idempotent already)' };
  if (policies.cache && target.kind === 'tool' && (target.annotations as { readOnlyHint?: boolean } | undefined)?.readOnlyHint !== true)
    return { decorator: 'Cache', text: 'caches read-only tools only: declare annotations: { readOnlyHint: true }' };
  return undefined;
}

/**
 * The problem with a streaming tool's (an async generator's) policies: a timeout and a concurrency limit
 * wrap the handler's run, which for a stream ends before its body runs, so neither could hold.
 */
export function streamingPolicyProblem(policies: HandlerPolicies | undefined): { decorator: string; text: string } | undefined {
  const decorator = policies?.timeoutMs !== undefined ? 'Timeout' : policies?.concurrency ? 'Concurrency' : undefined;
  return decorator && { decorator, text: 'does not apply to a streaming tool (an async generator) yet: stop it with ctx.signal instead' };
}

/** A tool's annotations as its policies make them: an idempotent tool says so (`idempotentHint`). */
export function withPolicyHints(
  annotations: ToolAnnotations | undefined,
  policies: HandlerPolicies | undefined,
): ToolAnnotations | undefined {
  return policies?.idempotent ? { ...annotations, idempotentHint: true } : annotations;
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
  /** Rate limits, idempotency, the cache, a timeout and a concurrency limit, as the decorators set them. */
  policies?: HandlerPolicies;
}

/**
 * The requirements of a handler registered at runtime, checked like their decorator forms: scopes are
 * non-empty strings, each guard has a `canActivate` method, middleware are functions. `fail` makes
 * the named error for a problem.
 */
export function accessFromOptions(
  target: AccessTarget,
  { scopes = [], guards = [], middleware = [], policies }: AccessOptions,
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
  if (policies !== undefined) {
    const problem = typeof policies === 'object' && policies !== null ? policiesProblem(policies) : 'policies must be an object';
    if (problem) throw fail(problem);
  }
  const checked =
    policies &&
    ownPolicies(target, [{ policies }], (problem) => {
      throw fail(problem.text);
    });
  const sorted = [...new Set(scopes)].sort();
  return Object.freeze({
    ...target,
    scopes: Object.freeze(sorted),
    guards: Object.freeze([...new Set(guards)]),
    public: false,
    middleware: Object.freeze([...middleware]),
    restricted: sorted.length > 0 || guards.length > 0,
    policies: checked,
  });
}
