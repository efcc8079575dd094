import type { PolicyCall } from '../contracts/policies';
import type { RequestScope } from '../protocol/request-scope';

/** One request-level policy around a call: `next` serves the call (through the policies after this one). */
export type RequestStep = (call: PolicyCall, scope: RequestScope, next: () => Promise<unknown>) => Promise<unknown>;
