import type { RateLimitOptions } from '../contracts/policies';
import type { ClassOrMethodDecorator } from './access-target';
import { policyDecorator } from './policy-checks';

/**
 * At most `limit` calls per `windowMs` of this handler (or of each handler of the class), per caller by
 * default; more calls are refused with -32023 (HTTP 429) and when to retry. Stack it for quotas over
 * several windows (10 a second and 1,000 a day).
 */
export function RateLimit(options: RateLimitOptions): ClassOrMethodDecorator {
  return policyDecorator('RateLimit', { rateLimit: [{ ...options }] });
}
