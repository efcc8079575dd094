import type { IdempotencyOptions } from '../contracts/policies';
import type { ClassOrMethodDecorator } from './access-target';
import { policyDecorator } from './policy-checks';

/**
 * A tool call carrying an idempotency key (`_meta["mcpkit.dev/idempotency-key"]`) runs once per caller:
 * retries get its result. Sets the tool's `idempotentHint`.
 */
export function Idempotent(options: IdempotencyOptions = {}): ClassOrMethodDecorator {
  return policyDecorator('Idempotent', { idempotent: { ...options } });
}
