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
  error.stack = [error.message, ...faults.map((f) => (f.reason instanceof Error && f.reason.stack ? `\n${f.kind}: ${f.reason.stack}` : ''))].join('\n');
  return error;
}

function reasonMessage(reason: unknown): string {
  if (reason instanceof Error) return `${reason.name}: ${reason.message}`;
  // A reason from the test realm fails `instanceof Error` of the outer realm; duck-type it.
  if (typeof reason === 'object' && reason !== null && 'message' in reason) return String((reason as { message: unknown }).message);
  try {
    return JSON.stringify(reason) ?? String(reason);
  } catch {
    return String(reason);
  }
}
