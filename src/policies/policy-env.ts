import type { StoreFailure } from '../contracts/policies';
import type { Invocation } from '../contracts/middleware';
import type { PolicyStore } from '../contracts/policy-store';
import { StorageUnavailableError } from '../tasks/task-store.errors';
import type { AnonymousKey } from './policy-keys';

export type PolicyName = 'rate_limit' | 'idempotency' | 'cache' | 'timeout' | 'concurrency';

/** What a policy did with a call, as telemetry counts it. */
export type PolicyOutcome = 'refused' | 'replayed' | 'waited' | 'hit' | 'timed_out' | 'queued' | 'store_unavailable';

/** What every policy works with: the store, who the caller is, the log and telemetry. */
export interface PolicyEnv {
  readonly store: PolicyStore;
  readonly anonymous: AnonymousKey;
  /** The log of store failures let through (repeats throttled). */
  readonly storeFailed: (policy: PolicyName, error: unknown) => void;
  readonly logError: (message: string, error?: unknown) => void;
  /** A span event and a count of what a policy did. */
  readonly record: (policy: PolicyName, outcome: PolicyOutcome, call: Invocation) => void;
}

/** The store was not reached and the policy fails open: the call goes on without it. */
export const UNGUARDED: unique symbol = Symbol('mcpkit.policy.unguarded');

/**
 * A store call under a policy's failure mode. An outage (StorageUnavailableError, which every store
 * throws when it cannot be reached) is counted; failing open, it is logged and UNGUARDED comes back;
 * failing closed, the call is refused with it (-32603 "The policy store is unavailable"). Any other
 * error of the store (a store that refuses a command, a bug) is no outage: the call fails with it,
 * never let through unguarded.
 */
export async function fromStore<T>(
  env: PolicyEnv,
  policy: PolicyName,
  call: Invocation,
  failure: StoreFailure,
  work: () => Promise<T>,
): Promise<T | typeof UNGUARDED> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof StorageUnavailableError)) throw error;
    env.record(policy, 'store_unavailable', call);
    if (failure === 'closed') throw error;
    env.storeFailed(policy, error);
    return UNGUARDED;
  }
}
