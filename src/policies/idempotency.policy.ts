import { IDEMPOTENCY_KEY_META, type IdempotencyOptions } from '../contracts/policies';
import type { Call } from '../protocol/pipeline/call';
import type { IdempotencyClaim } from '../contracts/policy-store';
import { McpError } from '../mcp/mcp.error';
import { fromStore, type PolicyEnv, UNGUARDED } from './policy-env';
import { callerOf, digest } from './policy-keys';
import type { CallStep } from '../protocol/pipeline/stages';

const DAY_MS = 24 * 60 * 60 * 1000;
const MIB = 1024 * 1024;

/**
 * A keyed call runs once per caller. The record is claimed before the call runs: a retry while it runs
 * waits for it to settle, a retry after gets the stored result (a task-augmented call's is its task),
 * and the key with other arguments (or another tool) is refused. A call that ends in a JSON-RPC error,
 * or needs input from the client, keeps nothing: its retry runs again.
 */
export function idempotencyStep(env: PolicyEnv, options: IdempotencyOptions): CallStep {
  const failure = options.onStoreError ?? 'closed';
  const ttlMs = options.ttlMs ?? DAY_MS;
  const maxBytes = options.maxBytes ?? MIB;
  const runningMs = options.runningMs ?? 5 * 60 * 1000;
  return async (call, next) => {
    const scope = call.scope;
    const key = idempotencyKeyOf(call, options.keyFromArguments === true);
    if (key === undefined) return next();
    const record = `idem:${callerOf(call.context, env.anonymous)}:${key.stored}`;
    const fingerprint = digest({ name: call.name, arguments: call.arguments });
    let token: string;
    for (;;) {
      const claim: IdempotencyClaim | typeof UNGUARDED = await fromStore(env, 'idempotency', call, failure, () =>
        env.store.claim(record, fingerprint, runningMs),
      );
      if (claim === UNGUARDED) return next();
      if (claim.status === 'claimed') {
        token = claim.token;
        break;
      }
      if (claim.status === 'conflict')
        throw McpError.invalidParams(`Idempotency key "${key.sent}" was already used with other arguments`, { idempotencyKey: key.sent });
      if (claim.status === 'done') {
        env.record('idempotency', 'replayed', call);
        return JSON.parse(claim.value) as unknown;
      }
      env.record('idempotency', 'waited', call);
      const waited = await fromStore(env, 'idempotency', call, failure, () => env.store.waitSettled(record, scope.signal));
      if (waited === UNGUARDED) return next();
      if (scope.signal.aborted) throw McpError.invalidRequest('The request was cancelled');
    }
    let result: unknown;
    try {
      result = await next();
    } catch (error) {
      await env.store.settle(record, token, undefined, ttlMs).catch((e) => env.storeFailed('idempotency', e));
      throw error;
    }
    const json = scope.needsInput ? undefined : JSON.stringify(result);
    const kept = json !== undefined && Buffer.byteLength(json) <= maxBytes ? json : undefined;
    await env.store.settle(record, token, kept, ttlMs).catch((e) => env.storeFailed('idempotency', e));
    return result;
  };
}

/**
 * The call's key: the one sent in `_meta` (checked), else its arguments' digest where configured (the
 * two kinds stored apart, so that a client's key never names an arguments' record).
 */
function idempotencyKeyOf(call: Call, fromArguments: boolean): { sent?: string; stored: string } | undefined {
  const sent = call.context.meta?.[IDEMPOTENCY_KEY_META];
  if (sent === undefined) return fromArguments ? { stored: `args:${digest({ name: call.name, arguments: call.arguments })}` } : undefined;
  if (typeof sent !== 'string' || sent.length === 0 || sent.length > 255)
    throw McpError.invalidParams(`_meta["${IDEMPOTENCY_KEY_META}"] must be a string of 1-255 characters`);
  return { sent, stored: `key:${sent}` };
}
