import { createHash } from 'node:crypto';
import type { McpContext } from '../context/mcp-context';
import type { PolicyKey } from '../contracts/policies';
import type { Invocation } from '../contracts/middleware';

/** How an anonymous caller is told apart (the application's `policies.anonymousKey`). */
export type AnonymousKey = (context: McpContext) => string | undefined;

/**
 * An anonymous caller's default key: the address its connection comes from (the client's own, or with
 * `trustProxy` hops, the one that many proxies back in X-Forwarded-For), else (stdio) the local user.
 */
export function addressKey(trustProxy: number): AnonymousKey {
  return (context) => {
    if (trustProxy > 0) {
      const forwarded = context.headers?.['x-forwarded-for'];
      const hops = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? ''))
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean);
      const client = hops[hops.length - trustProxy];
      if (client) return client;
    }
    return context.clientAddress ?? 'local';
  };
}

/** The budget a call counts against, for `per`: the caller's (principal or anonymous key), everyone's, or a named one. */
export function budgetOf(call: Invocation, per: PolicyKey, anonymous: AnonymousKey): string {
  if (per === 'everyone') return '*';
  const named = typeof per === 'function' ? per(call) : undefined;
  return named !== undefined ? `k:${named}` : callerOf(call.context, anonymous);
}

/** The caller: its principal when authenticated, else its anonymous key. */
export function callerOf(context: McpContext, anonymous: AnonymousKey): string {
  const principal = context.auth?.principal;
  return principal ? `p:${principal}` : `a:${anonymous(context) ?? 'anonymous'}`;
}

/** A short, stable digest of a JSON value: object keys sorted, so that the same arguments hash alike. */
export function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
