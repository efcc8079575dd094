import type { CacheOptions } from '../contracts/policies';
import type { ClassOrMethodDecorator } from './access-target';
import { policyDecorator } from './policy-checks';

/** Results cached for `ttlMs`, per caller unless `scope` is 'public'. For read-only tools, resources and prompts. */
export function Cache(options: CacheOptions): ClassOrMethodDecorator {
  return policyDecorator('Cache', { cache: { ...options } });
}
