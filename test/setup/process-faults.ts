/**
 * Shared between the test environment (outer realm, real `process`) and the setup file (test realm),
 * through one property of the test global.
 */
export const PROCESS_FAULTS = '__mcpkitProcessFaults';

/** An unhandled rejection or uncaught exception seen by the real process. */
export interface ProcessFault {
  readonly kind: 'unhandled rejection' | 'uncaught exception';
  readonly reason: unknown;
}

/** One error for a list of faults: the first reason's message up front, every stack below. */
export function faultError(faults: readonly ProcessFault[], when: string): Error {
  const describe = (f: ProcessFault) => `${f.kind} ${when}: ${reasonMessage(f.reason)}`;
  const error = new Error(faults.map(describe).join('\n'));
  const stacks = faults.map((f) => {
    const stack = errorLike(f.reason)?.stack;
    return typeof stack === 'string' && stack ? `\n${f.kind}: ${stack}` : '';
  });
  error.stack = [error.message, ...stacks].join('\n');
  return error;
}

/** Duck-typed: an error from the test's vm realm fails `instanceof Error` in the environment's realm. */
function errorLike(reason: unknown): { name?: unknown; message: unknown; stack?: unknown } | undefined {
  return typeof reason === 'object' && reason !== null && 'message' in reason ? reason : undefined;
}

function reasonMessage(reason: unknown): string {
  const error = errorLike(reason);
  if (error) return typeof error.name === 'string' ? `${error.name}: ${String(error.message)}` : String(error.message);
  try {
    return JSON.stringify(reason) ?? String(reason);
  } catch {
    return String(reason);
  }
}
