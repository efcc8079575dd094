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

const storage = new AsyncLocalStorage<LogFields>();

/** Runs `fn` with `fields` added to every server log entry made while it runs (request id, method, session). */
export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  const outer = storage.getStore();
  return storage.run(outer ? { ...outer, ...fields } : fields, fn);
}

/** The fields of the request being served, if any. */
export function currentLogFields(): LogFields | undefined {
  return storage.getStore();
}

/**
 * Runs `fn` with the fields of the message it serves (see messageLogFields): one object per message
 * when no fields were set around it, as on stdio.
 */
export function withMessageFields<T>(message: object, fn: () => T): T {
  const fields = messageLogFields(message);
  const outer = storage.getStore();
  return storage.run(outer ? { ...outer, ...fields } : fields, fn);
}

/** The log fields of a JSON-RPC message a connection receives: a request's id and method, or a notification's method. */
export function messageLogFields(message: object): LogFields {
  const { id, method } = message as { id?: unknown; method?: unknown };
  // Literals of a fixed shape (a field added at a time made each object change its hidden class twice).
  if (typeof method !== 'string') return {};
  return typeof id === 'string' || typeof id === 'number' ? { method, requestId: id } : { method };
}
