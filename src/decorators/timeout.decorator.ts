import type { ClassOrMethodDecorator } from './access-target';
import { policyDecorator } from './policy-checks';

/** A call running longer than `ms` has its `ctx.signal` aborted and is answered with an error (a task fails). */
export function Timeout(ms: number): ClassOrMethodDecorator {
  return policyDecorator('Timeout', { timeoutMs: ms });
}
