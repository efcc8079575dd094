import type { RateLimitOptions } from '../contracts/policies';
import { RateLimitedError } from '../mcp/rate-limited.error';
import { fromStore, type PolicyEnv, UNGUARDED } from './policy-env';
import { budgetOf } from './policy-keys';
import type { CallStep } from '../protocol/pipeline/stages';

/**
 * Each limit takes one call from its token bucket (per caller, by default); the first that has none
 * left refuses the call with -32023 and when to retry. Buckets are named by the handler, the limit and
 * the budget, so two limits of a handler (a rate and a quota) count apart.
 */
export function rateLimitStep(env: PolicyEnv, handler: string, limits: readonly RateLimitOptions[]): CallStep {
  return async (call, next) => {
    for (const limit of limits) {
      const key = `rl:${handler}:${limit.limit}/${limit.windowMs}:${budgetOf(call, limit.per ?? 'caller', env.anonymous)}`;
      const decision = await fromStore(env, 'rate_limit', call, limit.onStoreError ?? 'open', () =>
        env.store.consume(key, limit.limit, limit.windowMs),
      );
      if (decision === UNGUARDED || decision.allowed) continue;
      env.record('rate_limit', 'refused', call);
      const budget = limit.disclose === false ? {} : { limit: limit.limit, remaining: 0 };
      throw new RateLimitedError(`Rate limit exceeded: at most ${limit.limit} calls per ${limit.windowMs} ms`, {
        retryAfterMs: decision.retryAfterMs,
        ...budget,
      });
    }
    return next();
  };
}
