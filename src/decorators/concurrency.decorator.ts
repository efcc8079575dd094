import type { ConcurrencyOptions } from '../contracts/policies';
import type { ClassOrMethodDecorator } from './access-target';
import { policyDecorator } from './policy-checks';

/** At most `max` calls at once; the next `queue` wait for a slot, the rest are refused as rate limited. */
export function Concurrency(options: ConcurrencyOptions): ClassOrMethodDecorator {
  return policyDecorator('Concurrency', { concurrency: { ...options } });
}
