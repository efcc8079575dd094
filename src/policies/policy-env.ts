import type { StoreFailure } from '../contracts/policies';
import type { Invocation } from '../contracts/middleware';
import type { PolicyStore } from '../contracts/policy-store';
import { McpError } from '../mcp/mcp.error';
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
 * A store call under a policy's failure mode. Any error of the store counts as an outage: failing
 * open, it is logged and counted and UNGUARDED comes back; failing closed, the call is refused with
 * the store's error (-32603 "The policy store is unavailable" for an error of its own).
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
    env.record(policy, 'store_unavailable', call);
    if (failure === 'closed') throw error instanceof McpError ? error : new StorageUnavailableError('The policy store', error);
    env.storeFailed(policy, error);
    return UNGUARDED;
  }
}
