import { AsyncLocalStorage } from 'node:async_hooks';
import { isThenable, type MaybePromise } from '../mcp/maybe-promise';

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

/*
 * The fields reach the logger two ways. Work that may wait (a handler that returns a promise) runs in
 * an AsyncLocalStorage, which keeps them across its awaits. But on Node 20 a storage in use makes every
 * promise of the process run async hooks (~18 µs of a ~110 µs stateless call over HTTP, measured), so
 * it is in use only while such work runs: `stored` counts it, and the storage is disabled (its hooks
 * off) when none is left. Work known to finish synchronously has its fields in `syncFields` while it
 * runs, which costs nothing (see RequestFields).
 */
const storage = new AsyncLocalStorage<LogFields>();
let syncFields: LogFields | undefined;
let stored = 0;

/** Runs `fn` with `fields` added to every server log entry made while it runs (request id, method, session). */
export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  const outer = currentLogFields();
  return inStorage(outer ? { ...outer, ...fields } : fields, fn);
}

/** The fields of the request being served, if any. */
export function currentLogFields(): LogFields | undefined {
  return syncFields ?? storage.getStore();
}

/**
 * Runs `fn`, work that outlives the request it starts in (a task's handler), with the request's fields:
 * the storage is kept in use until its work settles, so that what it logs later still carries them.
 */
export function keepLogFields<T>(fn: () => T): T {
  const fields = currentLogFields();
  return fields ? inStorage(fields, fn) : fn();
}

/** Runs `fn` in the storage, kept in use until what it returns settles. */
function inStorage<T>(fields: LogFields, fn: () => T): T {
  const saved = syncFields;
  syncFields = undefined;
  stored++;
  let result: T;
  try {
    result = storage.run(fields, fn);
  } catch (error) {
    release();
    throw error;
  } finally {
    syncFields = saved;
  }
  if (isThenable(result)) result.then(release, release);
  else release();
  return result;
}

function release(): void {
  if (--stored === 0) disable?.();
}

/**
 * Node's disable(), where the runtime has one that works: workerd's AsyncLocalStorage throws on it, and
 * the runtimes whose storage is not built on async hooks (workerd, Deno, Bun) gain nothing from it anyway.
 */
const disable = ((): (() => void) | undefined => {
  try {
    storage.disable(); // a no-op on a storage never used
    return () => storage.disable();
  } catch {
    return undefined;
  }
})();

/** Runs `fn`, which will not wait, with `fields` (no storage). */
function inSync<T>(fields: LogFields, fn: () => T): T {
  const saved = syncFields;
  const outer = saved ?? storage.getStore();
  syncFields = outer ? { ...outer, ...fields } : fields;
  try {
    return fn();
  } finally {
    syncFields = saved;
  }
}

/** Kinds of request learned, at most: beyond, a new kind is served in the storage, unlearned. */
const MAX_KINDS = 1024;
/** The longest method or name learned: longer ones are served in the storage, unlearned. */
const MAX_KEY_CHARS = 256;
/** Synchronous answers in a row after which a kind of request is served without the storage. */
const LEARNED = 8;
/** The mark of a kind that once waited: always served in the storage. */
const WAITS = -1;

/**
 * The log fields of requests, set the cheapest way that keeps them: each kind of request (its method
 * and the name of its tool or prompt, or its resource's URI) is served in the AsyncLocalStorage until it
 * answered synchronously LEARNED times in a row, then without it, as long as it keeps answering
 * synchronously. The first time a learned kind returns a promise it is served in the storage for good;
 * in that one call, entries logged after its first await lack the fields. One per transport: what it
 * learns is about one application's handlers.
 */
export class RequestFields {
  private readonly kinds = new Map<string, Map<string, number>>();
  private size = 0;

  /** Runs `fn`, the request `method` of `params` (its name or URI), with `fields`; returns what `fn` returns. */
  run<T>(method: string, params: Record<string, unknown> | undefined, fields: LogFields, fn: () => MaybePromise<T>): MaybePromise<T> {
    const named = params?.name ?? params?.uri;
    const name = typeof named === 'string' ? named : '';
    const seen = this.kinds.get(method)?.get(name);
    if (seen !== undefined && seen >= LEARNED) {
      const result = inSync(fields, fn);
      if (isThenable(result)) this.kinds.get(method)!.set(name, WAITS);
      return result;
    }
    const result = inStorage(fields, fn);
    if (seen === WAITS) return result;
    if (isThenable(result)) this.learn(method, name, WAITS);
    else this.learn(method, name, (seen ?? 0) + 1);
    return result;
  }

  /** `run` for a JSON-RPC message a connection receives, with its messageLogFields (a response: none). */
  message<T>(message: object, fn: () => MaybePromise<T>): MaybePromise<T> {
    const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
    return typeof method === 'string' ? this.run(method, params, messageLogFields(message), fn) : fn();
  }

  private learn(method: string, name: string, value: number): void {
    // A client's strings are kept only when short: a request naming a 4 MB tool is answered (an error)
    // synchronously, and 1,024 of them would otherwise be held for the transport's life.
    if (method.length > MAX_KEY_CHARS || name.length > MAX_KEY_CHARS) return;
    let names = this.kinds.get(method);
    if (!names?.has(name)) {
      if (this.size >= MAX_KINDS) return;
      this.size++;
    }
    if (!names) this.kinds.set(method, (names = new Map<string, number>()));
    names.set(name, value);
  }
}

/** The log fields of a JSON-RPC message a connection receives: a request's id and method, or a notification's method. */
export function messageLogFields(message: object): LogFields {
  const { id, method } = message as { id?: unknown; method?: unknown };
  // Literals of a fixed shape (a field added at a time made each object change its hidden class twice).
  if (typeof method !== 'string') return {};
  return typeof id === 'string' || typeof id === 'number' ? { method, requestId: id } : { method };
}
