import type { ConcurrencyOptions, StoreFailure } from '../contracts/policies';
import type { Call } from '../protocol/pipeline/call';
import { RateLimitedError } from '../mcp/rate-limited.error';
import { fromStore, type PolicyEnv, UNGUARDED } from './policy-env';
import { budgetOf } from './policy-keys';
import type { CallStep } from '../protocol/pipeline/stages';

/** What a refused caller is told to wait: a slot's release cannot be foreseen. */
const RETRY_AFTER_MS = 1000;

/**
 * At most `max` runs of the handler at once (per budget): a call takes a slot, or waits in a queue
 * bounded per instance, or is refused as rate limited. A slot is held until the call is answered, and
 * lapses after `leaseMs` should its instance die.
 */
export function concurrencyStep(env: PolicyEnv, handler: string, options: ConcurrencyOptions, timeoutMs: number | undefined): CallStep {
  const failure = options.onStoreError ?? 'open';
  const leaseMs = options.leaseMs ?? timeoutMs ?? 10 * 60 * 1000;
  const queued = new Map<string, number>();
  const acquire = (call: Call, key: string) =>
    fromStore(env, 'concurrency', call, failure, () => env.store.acquire(key, options.max, leaseMs));
  const refuse = (): never => {
    throw new RateLimitedError(`Too many calls at once: at most ${options.max}`, { retryAfterMs: RETRY_AFTER_MS });
  };
  return async (call, next) => {
    const key = `cc:${handler}:${budgetOf(call, options.per ?? 'everyone', env.anonymous)}`;
    let permit = await acquire(call, key);
    if (permit === undefined) {
      if ((queued.get(key) ?? 0) >= (options.queue ?? 0)) {
        env.record('concurrency', 'refused', call);
        refuse();
      }
      env.record('concurrency', 'queued', call);
      queued.set(key, (queued.get(key) ?? 0) + 1);
      try {
        permit = await waitForSlot(env, call, key, options.queueTimeoutMs ?? 30_000, options.max, failure, () => acquire(call, key));
      } finally {
        const left = (queued.get(key) ?? 1) - 1;
        if (left === 0) queued.delete(key);
        else queued.set(key, left);
      }
      if (permit === undefined) {
        env.record('concurrency', 'refused', call);
        refuse();
      }
    }
    if (permit === UNGUARDED) return next();
    const held = permit as string;
    try {
      return await next();
    } finally {
      await env.store.release(key, held).catch((e) => env.storeFailed('concurrency', e));
    }
  };
}

/** Waits for a slot until `ms` passed (or the call was cancelled): the permit, or undefined. */
async function waitForSlot(
  env: PolicyEnv,
  call: Call,
  key: string,
  ms: number,
  max: number,
  failure: StoreFailure,
  acquire: () => Promise<string | undefined | typeof UNGUARDED>,
): Promise<string | undefined | typeof UNGUARDED> {
  const signal = AbortSignal.any([call.context.signal, AbortSignal.timeout(ms)]);
  while (!signal.aborted) {
    const waited = await fromStore(env, 'concurrency', call, failure, () => env.store.waitForRelease(key, max, signal));
    if (waited === UNGUARDED) return UNGUARDED;
    if (signal.aborted) return undefined;
    const permit = await acquire();
    if (permit !== undefined) return permit;
  }
  return undefined;
}
