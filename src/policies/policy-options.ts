import type { McpContext } from '../context/mcp-context';
import type { PolicyStore } from '../contracts/policy-store';
import type { DefaultPolicies } from './call-policies';

/** The application's `policies` option: where the call policies keep their state, and their defaults. */
export interface PolicyOptions {
  /**
   * Where rate limits, idempotency records, cached results and concurrency slots live. Default: the
   * scale-out's store (Redis: shared by every instance), else an `InMemoryPolicyStore` (32 MiB).
   */
  store?: PolicyStore;
  /**
   * Tells anonymous callers apart for budgets `per: 'caller'` (authenticated callers go by their
   * principal). Default: the client's address (`ctx.clientAddress`, or with `trustProxy` the forwarded
   * one), and one local user over stdio.
   */
  anonymousKey?: (context: McpContext) => string | undefined;
  /**
   * Proxies in front of the server whose X-Forwarded-For is trusted: the client's address is the entry
   * that many hops from the right (default 0: the connection's own address; never trust a header a
   * client can set freely).
   */
  trustProxy?: number;
  /** Policies of every tool, resource and prompt that does not set its own: a rate limit, a timeout, a concurrency limit. */
  defaults?: DefaultPolicies;
}
