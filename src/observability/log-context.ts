import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Structured fields of a log entry. mcpkit sets `requestId`, `method` and `sessionId` on entries
 * logged while it serves a request; `traceId` is passed through when a tracing layer sets it.
 */
export interface LogFields {
  requestId?: string | number;
  method?: string;
  sessionId?: string;
  traceId?: string;
  [field: string]: unknown;
}

/** The fields of the request being served, kept across its awaits (and into work it starts, a task's handler). */
const storage = new AsyncLocalStorage<LogFields>();

/** Runs `fn` with `fields` added to every server log entry made while it runs, awaits included (request id, method, session). */
export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  const outer = storage.getStore();
  return storage.run(outer ? { ...outer, ...fields } : fields, fn);
}

/** The fields of the request being served, if any. */
export function currentLogFields(): LogFields | undefined {
  return storage.getStore();
}

/**
 * The log fields of a JSON-RPC message a connection receives: a request's id and method, or a
 * notification's method; undefined for a response (it is no request of the client's).
 */
export function messageLogFields(message: object): LogFields | undefined {
  const { id, method } = message as { id?: unknown; method?: unknown };
  if (typeof method !== 'string') return undefined;
  return typeof id === 'string' || typeof id === 'number' ? { method, requestId: id } : { method };
}
