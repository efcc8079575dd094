import { McpContext } from '../context/mcp-context';
import type { HandlerPolicies, PolicyCall, RateLimitOptions } from '../contracts/policies';
import type { PolicyStore } from '../contracts/policy-store';
import type { RequestTelemetry } from '../observability/telemetry-options';
import type { PolicyRequest, RequestPolicies } from '../protocol/request-policies';
import type { RequestScope } from '../protocol/request-scope';
import type { HandlerAccess, HandlerRef } from '../registry/descriptors';
import { cacheStep, listTag, resourceTag } from './cache.policy';
import { concurrencyStep } from './concurrency.policy';
import type { HandlerStep } from './handler-step';
import { idempotencyStep } from './idempotency.policy';
import type { PolicyEnv, PolicyName } from './policy-env';
import type { AnonymousKey } from './policy-keys';
import { rateLimitStep } from './rate-limit.policy';
import type { RequestStep } from './request-step';
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

type Kind = PolicyCall['kind'];
const KINDS: ReadonlySet<string> = new Set<Kind>(['tool', 'resource', 'template', 'prompt']);

/**
 * The call policies of an application, in their documented order: rate limits, idempotency and the
 * cache act on the request (before a task is made for it, and before arguments are validated); a
 * concurrency limit and a timeout wrap the handler's run (inside its task), outside the middleware.
 * Each handler's steps are built on its first call and kept with its frozen access record.
 */
export class CallPolicies implements RequestPolicies {
  private readonly env: PolicyEnv;
  private readonly requestSteps = new WeakMap<HandlerAccess, readonly RequestStep[]>();
  private readonly handlerSteps = new WeakMap<HandlerAccess, readonly HandlerStep[]>();

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

  admit(ref: HandlerRef, request: PolicyRequest, scope: RequestScope, serve: () => Promise<unknown>): Promise<unknown> {
    const steps = this.stepsOf(ref, this.requestSteps, (policies, handler) => this.buildRequestSteps(ref, policies, handler));
    if (steps.length === 0) return serve();
    const call: PolicyCall = {
      kind: ref.access.kind as Kind,
      name: request.name,
      handler: ref.where,
      arguments: request.arguments,
      context: scope.context(),
    };
    let index = 0;
    const next = (): Promise<unknown> => (index < steps.length ? steps[index++](call, scope, next) : serve());
    return next();
  }

  /** True when the handler's run is wrapped (a concurrency limit or a timeout applies). */
  wraps(ref: HandlerRef): boolean {
    return this.handlerStepsOf(ref).length > 0;
  }

  /** Runs a handler through its concurrency limit and timeout; `run` is the rest (middleware, then the handler). */
  around(ref: HandlerRef, args: unknown[], run: (args: unknown[]) => Promise<unknown>): Promise<unknown> {
    const steps = this.handlerStepsOf(ref);
    const context = args.find((a): a is McpContext => a instanceof McpContext);
    if (steps.length === 0 || !context) return run(args);
    const input = args.find((a) => a !== context && typeof a === 'object' && a !== null) as Record<string, unknown> | undefined;
    const call: PolicyCall = { kind: ref.access.kind as Kind, name: ref.access.name, handler: ref.where, arguments: input ?? {}, context };
    const chain = (index: number, current: unknown[]): Promise<unknown> =>
      index < steps.length ? steps[index](call, current, (next) => chain(index + 1, next)) : run(current);
    return chain(0, args);
  }

  private handlerStepsOf(ref: HandlerRef): readonly HandlerStep[] {
    return this.stepsOf(ref, this.handlerSteps, (policies, handler) => this.buildHandlerSteps(policies, handler));
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

  private stepsOf<S>(
    ref: HandlerRef,
    cache: WeakMap<HandlerAccess, readonly S[]>,
    build: (policies: HandlerPolicies, handler: string) => S[],
  ): readonly S[] {
    const access = ref.access;
    let steps = cache.get(access);
    if (!steps) {
      const policies = this.policiesOf(ref);
      steps = policies ? build(policies, `${access.kind}:${access.name}`) : [];
      cache.set(access, steps);
    }
    return steps;
  }

  private buildRequestSteps(ref: HandlerRef, policies: HandlerPolicies, handler: string): RequestStep[] {
    const steps: RequestStep[] = [];
    const limits: readonly RateLimitOptions[] = Array.isArray(policies.rateLimit)
      ? policies.rateLimit
      : policies.rateLimit
        ? [policies.rateLimit as RateLimitOptions]
        : [];
    if (limits.length > 0) steps.push(rateLimitStep(this.env, handler, limits));
    if (policies.idempotent) steps.push(idempotencyStep(this.env, policies.idempotent));
    if (policies.cache) steps.push(cacheStep(this.env, handler, policies.cache, hasOwnHint(ref)));
    return steps;
  }

  private buildHandlerSteps(policies: HandlerPolicies, handler: string): HandlerStep[] {
    const steps: HandlerStep[] = [];
    if (policies.concurrency) steps.push(concurrencyStep(this.env, handler, policies.concurrency, policies.timeoutMs));
    if (policies.timeoutMs) steps.push(timeoutStep(this.env, policies.timeoutMs));
    return steps;
  }
}

/** A resource that sets its own cache hint (`cache` option) keeps it over its policy's. */
function hasOwnHint(ref: HandlerRef): boolean {
  return (ref as HandlerRef & { cache?: unknown }).cache !== undefined;
}
