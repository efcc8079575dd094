import { type Authorizer, callerOf } from '../authorizer';
import type { CallStep, StepFactory } from './stages';

/**
 * The authorize stage: a handler with requirements (scopes, guards) refuses a caller that does not meet
 * them before anything else runs; one without requirements has no such step.
 */
export function authorizeStep(authorizer: Authorizer): StepFactory {
  return (ref) => {
    if (!ref.access.restricted) return undefined;
    const step: CallStep = async (call, next) => {
      await authorizer.assert(ref, callerOf(call.scope.extra));
      return next();
    };
    return step;
  };
}
