import type { HandlerPolicies, RateLimitOptions } from '../contracts/policies';
import type { PolicyStore } from '../contracts/policy-store';
import type { RequestTelemetry } from '../observability/telemetry-options';
import type { CallStep, StageSuppliers } from '../protocol/pipeline/stages';
import type { HandlerRef } from '../registry/descriptors';
import { cacheStep, listTag, resourceTag } from './cache.policy';
import { concurrencyStep } from './concurrency.policy';
import { idempotencyStep } from './idempotency.policy';
import type { PolicyEnv, PolicyName } from './policy-env';
import type { AnonymousKey } from './policy-keys';
import { rateLimitStep } from './rate-limit.policy';
import { timeoutStep } from './timeout.policy';

/** The policies every handler gets unless it sets its own (the application's `policies.defaults`). */
export type DefaultPolicies = Pick<HandlerPolicies, 'rateLimit' | 'timeoutMs' | 'concurrency'>;

export interface CallPoliciesOptions {
  readonly store: PolicyStore;
  readonly anonymous: AnonymousKey;
  readonly defaults?: DefaultPolicies;
  readonly logError: (message: string, error?: unknown) => void;
  readonly telemetry?: RequestTelemetry;
}

/** A store failure let through is logged at most this often per policy (an outage fails every call). */
const LOG_EVERY_MS = 10_000;

const KINDS: ReadonlySet<string> = new Set(['tool', 'resource', 'template', 'prompt']);

/**
 * The call policies of an application, as the stages of handlers' pipelines they are (see
 * protocol/pipeline/stages.ts): rate limits, idempotency and the result cache act on the request (before a
 * task is made for it, and before arguments are validated); a concurrency limit and a timeout wrap the
 * handler's run (inside its task), outside the middleware. A handler without a policy has none of these steps.
 */
export class CallPolicies {
  private readonly env: PolicyEnv;

  constructor(private readonly options: CallPoliciesOptions) {
    const logged = new Map<PolicyName, number>();
    const telemetry = options.telemetry?.recording ? options.telemetry : undefined;
    this.env = {
      store: options.store,
      anonymous: options.anonymous,
      logError: options.logError,
      storeFailed: (policy, error) => {
        const now = Date.now();
        if (now - (logged.get(policy) ?? 0) < LOG_EVERY_MS) return;
        logged.set(policy, now);
        options.logError(`The policy store failed; ${policy} let calls through (repeats within 10 s are not logged)`, error);
      },
      record: (policy, outcome, call) => telemetry?.policyOutcome({ policy, outcome, kind: call.kind, name: call.name }),
    };
  }

  get store(): PolicyStore {
    return this.options.store;
  }

  /** The stages the policies supply: each handler's steps, from its policies and the application's defaults. */
  stages(): StageSuppliers {
    const step = (ref: HandlerRef, make: (policies: HandlerPolicies, handler: string) => CallStep | undefined) => {
      const policies = this.policiesOf(ref);
      return policies && make(policies, `${ref.access.kind}:${ref.access.name}`);
    };
    return {
      rateLimit: (ref) =>
        step(ref, (policies, handler) => {
          const limits = listOf(policies.rateLimit);
          return limits.length > 0 ? rateLimitStep(this.env, handler, limits) : undefined;
        }),
      idempotency: (ref) => step(ref, (policies) => policies.idempotent && idempotencyStep(this.env, policies.idempotent)),
      cache: (ref) => step(ref, (policies, handler) => policies.cache && cacheStep(this.env, handler, policies.cache, hasOwnHint(ref))),
      concurrency: (ref) =>
        step(
          ref,
          (policies, handler) => policies.concurrency && concurrencyStep(this.env, handler, policies.concurrency, policies.timeoutMs),
        ),
      timeout: (ref) => step(ref, (policies) => (policies.timeoutMs ? timeoutStep(this.env, policies.timeoutMs) : undefined)),
    };
  }

  resourceUpdated(uri: string): Promise<void> {
    return this.options.store.invalidate(resourceTag(uri));
  }

  listChanged(list: 'tools' | 'resources' | 'prompts'): Promise<void> {
    return this.options.store.invalidate(listTag(list === 'tools' ? 'tool' : list === 'prompts' ? 'prompt' : 'resource'));
  }

  /**
   * The handler's policies with the application's defaults under them: none for completions and methods,
   * and no default timeout or concurrency limit for a streaming tool (they cannot hold one yet).
   */
  policiesOf(ref: Pick<HandlerRef, 'access'> & { streaming?: boolean }): HandlerPolicies | undefined {
    const access = ref.access;
    if (!KINDS.has(access.kind)) return undefined;
    const given = this.options.defaults;
    if (!given) return access.policies;
    const defaults = ref.streaming ? { rateLimit: given.rateLimit } : given;
    return { ...defaults, ...access.policies, rateLimit: access.policies?.rateLimit ?? defaults.rateLimit };
  }
}

function listOf(limits: HandlerPolicies['rateLimit']): readonly RateLimitOptions[] {
  if (limits === undefined) return [];
  return Array.isArray(limits) ? (limits as readonly RateLimitOptions[]) : [limits as RateLimitOptions];
}

/** A resource that sets its own cache hint (`cache` option) keeps it over its policy's. */
function hasOwnHint(ref: HandlerRef): boolean {
  return (ref as HandlerRef & { cache?: unknown }).cache !== undefined;
}
