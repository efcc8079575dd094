import type { HandlerRef } from '../registry/descriptors';
import type { RequestScope } from './request-scope';

/** A call as the request policies see it: its name (a resource's URI) and its arguments as sent. */
export interface PolicyRequest {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/**
 * The policies that act on a request before its handler runs (and before a task is made for it): rate
 * limits, idempotency and the result cache. The engine calls them after authorization; the kernel
 * supplies them.
 */
export interface RequestPolicies {
  /** Serves a call of `ref` through its policies: `serve` runs the call itself (or makes its task). */
  admit(ref: HandlerRef, request: PolicyRequest, scope: RequestScope, serve: () => Promise<unknown>): Promise<unknown>;
  /** A resource changed: results cached for it are stale. */
  resourceUpdated(uri: string): Promise<void>;
  /** A list changed: results cached for its handlers are stale. */
  listChanged(list: 'tools' | 'resources' | 'prompts'): Promise<void>;
}

/** No policies: every call is served as it is. */
export const NO_POLICIES: RequestPolicies = {
  admit: (_ref, _request, _scope, serve) => serve(),
  resourceUpdated: () => Promise.resolve(),
  listChanged: () => Promise.resolve(),
};
