import type {
  CacheOptions,
  ConcurrencyOptions,
  HandlerPolicies,
  IdempotencyOptions,
  PolicyKey,
  RateLimitOptions,
} from '../contracts/policies';
import { accessDecorator, type ClassOrMethodDecorator } from './access-target';

/**
 * The problem with a handler's policies as given, or undefined: the one check behind the decorators
 * (`@RateLimit`…) and the `policies` option of handlers registered at runtime.
 */
export function policiesProblem(policies: HandlerPolicies): string | undefined {
  const limits: readonly RateLimitOptions[] | undefined =
    policies.rateLimit === undefined ? undefined : Array.isArray(policies.rateLimit) ? policies.rateLimit : [policies.rateLimit];
  for (const limit of limits ?? []) {
    const problem = rateLimitProblem(limit);
    if (problem) return problem;
  }
  if (policies.idempotent !== undefined) {
    const problem = idempotencyProblem(policies.idempotent);
    if (problem) return problem;
  }
  if (policies.cache !== undefined) {
    const problem = cacheProblem(policies.cache);
    if (problem) return problem;
  }
  if (policies.timeoutMs !== undefined && !positive(policies.timeoutMs)) return 'timeoutMs must be a positive number of milliseconds';
  if (policies.concurrency !== undefined) return concurrencyProblem(policies.concurrency);
  return undefined;
}

/** A decorator recording `policies` on a class or a method, once they pass the check. */
export function policyDecorator(decorator: string, policies: HandlerPolicies): ClassOrMethodDecorator {
  return accessDecorator(
    decorator,
    (fail) => {
      const problem = policiesProblem(policies);
      if (problem) fail(problem);
    },
    { policies },
  );
}

function rateLimitProblem(limit: RateLimitOptions): string | undefined {
  if (typeof limit !== 'object' || limit === null) return 'a rate limit must be an object ({ limit, windowMs })';
  if (!Number.isInteger(limit.limit) || limit.limit < 1) return 'limit must be a whole number of calls, at least 1';
  if (!positive(limit.windowMs)) return 'windowMs must be a positive number of milliseconds';
  return keyProblem(limit.per) ?? failureProblem(limit.onStoreError);
}

function idempotencyProblem(options: IdempotencyOptions): string | undefined {
  if (typeof options !== 'object' || options === null) return 'idempotent must be an object (or omitted)';
  for (const name of ['ttlMs', 'maxBytes', 'runningMs'] as const)
    if (options[name] !== undefined && !positive(options[name])) return `${name} must be a positive number`;
  return failureProblem(options.onStoreError);
}

function cacheProblem(options: CacheOptions): string | undefined {
  if (typeof options !== 'object' || options === null || !positive(options.ttlMs))
    return 'cache needs ttlMs, a positive number of milliseconds';
  if (options.scope !== undefined && options.scope !== 'private' && options.scope !== 'public')
    return "cache scope must be 'private' or 'public'";
  if (options.maxBytes !== undefined && !positive(options.maxBytes)) return 'maxBytes must be a positive number';
  return failureProblem(options.onStoreError);
}

function concurrencyProblem(options: ConcurrencyOptions): string | undefined {
  if (typeof options !== 'object' || options === null || !Number.isInteger(options.max) || options.max < 1)
    return 'concurrency needs max, a whole number of calls, at least 1';
  if (options.queue !== undefined && (!Number.isInteger(options.queue) || options.queue < 0))
    return 'queue must be a whole number, 0 or more';
  for (const name of ['queueTimeoutMs', 'leaseMs'] as const)
    if (options[name] !== undefined && !positive(options[name])) return `${name} must be a positive number of milliseconds`;
  return keyProblem(options.per) ?? failureProblem(options.onStoreError);
}

function keyProblem(per: PolicyKey | undefined): string | undefined {
  if (per === undefined || per === 'caller' || per === 'everyone' || typeof per === 'function') return undefined;
  return "per must be 'caller', 'everyone' or a function of the call";
}

function failureProblem(failure: unknown): string | undefined {
  return failure === undefined || failure === 'open' || failure === 'closed' ? undefined : "onStoreError must be 'open' or 'closed'";
}

function positive(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
