import type { HandlerPolicies, PolicyKey, RateLimitOptions } from '../contracts/policies';

/** A handler's call policies as lines for people (and `--json`): what each one allows, per whom. */
export function describePolicies(policies: HandlerPolicies): string[] {
  const lines: string[] = [];
  const limits: readonly RateLimitOptions[] = Array.isArray(policies.rateLimit)
    ? policies.rateLimit
    : policies.rateLimit
      ? [policies.rateLimit as RateLimitOptions]
      : [];
  for (const limit of limits) {
    const rate = `${limit.limit} per ${duration(limit.windowMs)} ${per(limit.per ?? 'caller')}`;
    lines.push(`rate limit: ${rate}${failure(limit.onStoreError, 'open')}`);
  }
  const idempotent = policies.idempotent;
  if (idempotent) {
    const byArguments = idempotent.keyFromArguments ? ', keyed by arguments without a key' : '';
    const kept = `results kept ${duration(idempotent.ttlMs ?? 86_400_000)}${byArguments}`;
    lines.push(`idempotent: ${kept}${failure(idempotent.onStoreError, 'closed')}`);
  }
  const cache = policies.cache;
  if (cache) {
    const shared = cache.scope === 'public' ? 'shared by every caller' : 'per caller';
    lines.push(`cache: ${duration(cache.ttlMs)}, ${shared}${failure(cache.onStoreError, 'open')}`);
  }
  if (policies.timeoutMs) lines.push(`timeout: ${duration(policies.timeoutMs)}`);
  const concurrency = policies.concurrency;
  if (concurrency) {
    const slots = `${concurrency.max} at once ${per(concurrency.per ?? 'everyone')}, ${concurrency.queue ?? 0} queued`;
    lines.push(`concurrency: ${slots}${failure(concurrency.onStoreError, 'open')}`);
  }
  return lines;
}

function per(key: PolicyKey): string {
  return key === 'caller' ? 'per caller' : key === 'everyone' ? 'for everyone' : 'per key of a function';
}

function failure(given: string | undefined, fallback: string): string {
  return (given ?? fallback) === 'closed' ? ' (refused while the store is away)' : '';
}

function duration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
