import type { CacheOptions } from '../contracts/policies';
import type { Invocation } from '../contracts/middleware';
import type { Call } from '../protocol/pipeline/call';
import { fromStore, type PolicyEnv, UNGUARDED } from './policy-env';
import { callerOf, digest } from './policy-keys';
import type { CallStep } from '../protocol/pipeline/stages';

const MIB = 1024 * 1024;

/** The list a kind of handler is in: a change to it makes their cached results stale. */
export function listTag(kind: Invocation['kind']): string {
  return kind === 'tool' ? 'list:tools' : kind === 'prompt' ? 'list:prompts' : 'list:resources';
}

export function resourceTag(uri: string): string {
  return `resource:${uri}`;
}

/**
 * Serves a call from the cache when it can (per caller, or shared where public), else runs it and keeps
 * its result. Errors, tool errors, task handles and the rounds of a multi round-trip call are never kept.
 * A resource read gets the 2026-07-28 cache hints to match (unless the resource sets its own).
 */
export function cacheStep(env: PolicyEnv, handler: string, options: CacheOptions, ownHint: boolean): CallStep {
  const failure = options.onStoreError ?? 'open';
  const maxBytes = options.maxBytes ?? MIB;
  const hint = { ttlMs: options.ttlMs, scope: options.scope ?? 'private' };
  return async (call, next) => {
    const scope = call.scope;
    if (call.kind !== 'tool' && call.kind !== 'prompt' && !ownHint) scope.setCacheHint?.(hint);
    if (scope.params.requestState !== undefined || scope.params.inputResponses !== undefined) return next();
    const owner = options.scope === 'public' ? '*' : callerOf(call.context, env.anonymous);
    const key = `cache:${handler}:${owner}:${digest({ name: call.name, arguments: call.arguments })}`;
    const tags = call.kind === 'resource' || call.kind === 'template' ? [listTag(call.kind), resourceTag(call.name)] : [listTag(call.kind)];
    const lookup = await fromStore(env, 'cache', call, failure, () => env.store.cacheGet(key, tags));
    if (lookup !== UNGUARDED && lookup.value !== undefined) {
      env.record('cache', 'hit', call);
      return JSON.parse(lookup.value) as unknown;
    }
    const result = await next();
    if (lookup === UNGUARDED || !keepable(call, result)) return result;
    const json = JSON.stringify(result);
    // The result stands whatever storing it does: an outage is counted, another error logged.
    if (Buffer.byteLength(json) <= maxBytes)
      await fromStore(env, 'cache', call, 'open', () => env.store.cacheSet(key, json, options.ttlMs, lookup.version)).catch(
        (error: unknown) => env.logError('The policy store could not keep a cached result', error),
      );
    return result;
  };
}

/** A final, successful result: a tool's content without isError, a read's contents, a prompt's messages. */
function keepable(call: Call, result: unknown): boolean {
  if (call.scope.needsInput || typeof result !== 'object' || result === null) return false;
  const value = result as Record<string, unknown>;
  if (call.kind === 'tool') return Array.isArray(value.content) && value.isError !== true;
  return call.kind === 'prompt' ? Array.isArray(value.messages) : Array.isArray(value.contents);
}
