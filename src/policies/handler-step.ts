import type { PolicyCall } from '../contracts/policies';

/**
 * One handler-level policy around a handler's run (inside its task, when it has one): `run` invokes the
 * handler through the middleware with the arguments given (the context among them may be replaced).
 */
export type HandlerStep = (call: PolicyCall, args: unknown[], run: (args: unknown[]) => Promise<unknown>) => Promise<unknown>;
