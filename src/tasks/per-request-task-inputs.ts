import { ErrorCode } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import { INPUT_KINDS } from '../protocol/per-request/input-round';
import { RELATED_TASK } from './task.types';

/** An input request of a 2026-07-28 task, as tasks/get shows it. */
export interface InputRequest {
  method: string;
  params: Record<string, unknown>;
}

interface Pending extends InputRequest {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The requests a task's handler makes to a 2026-07-28 client: each has a key unique over the task's
 * life (the `key` option, else `<capability>-<n>`), is shown by tasks/get while unanswered, and is
 * answered by tasks/update. The handler waits on them (it resumes, it is not re-run).
 */
export class PerRequestTaskInputs {
  private readonly pending = new Map<string, Pending>();
  private readonly used = new Set<string>();
  private next = 0;

  constructor(private readonly onOutstanding: (outstanding: boolean) => Promise<void>) {}

  /** A key for a new request: the handler's own when unused, else `<capability>-<n>`. */
  keyFor(method: string, key: string | undefined): string {
    let k = key ?? `${INPUT_KINDS[method]?.capability ?? 'input'}-${this.next++}`;
    while (this.used.has(k)) k = `${key ?? INPUT_KINDS[method]?.capability ?? 'input'}-${this.next++}`;
    this.used.add(k);
    return k;
  }

  /** Parks a request until tasks/update answers it (or the task's signal aborts). */
  async ask(key: string, method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    if (!INPUT_KINDS[method]?.capability) throw new McpError(ErrorCode.InternalError, `${method} cannot be asked of a 2026-07-28 client`);
    const answer = new Promise<unknown>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(key);
        // AbortSignal types its reason `any`: an Error is passed on, anything else (or none) said as cancelled.
        reject(signal?.reason instanceof Error ? signal.reason : new McpError(ErrorCode.InternalError, 'The task was cancelled'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(key, {
        method,
        params: withoutTaskMeta(params),
        resolve: (v) => (done(), resolve(v)),
        reject: (e) => (done(), reject(e)),
      });
    });
    // The signal may abort while the status is written: the rejection is this function's to throw, below.
    answer.catch(() => undefined);
    if (this.pending.size === 1) await this.onOutstanding(true);
    try {
      return await answer;
    } finally {
      if (this.pending.size === 0) await this.onOutstanding(false);
    }
  }

  /** The unanswered requests, by key. */
  requests(): Record<string, InputRequest> | undefined {
    if (this.pending.size === 0) return undefined;
    const out: Record<string, InputRequest> = {};
    for (const [key, p] of this.pending) out[key] = { method: p.method, params: p.params };
    return out;
  }

  /**
   * Answers the named requests; keys of no outstanding request are ignored. An answer that does not
   * fit its request is -32602, and nothing of the update is taken.
   */
  answer(responses: Record<string, unknown>): void {
    checkAnswers(this.pending, responses);
    for (const [key, value] of Object.entries(responses)) {
      const p = this.pending.get(key);
      if (!p) continue;
      this.pending.delete(key);
      p.resolve(value);
    }
  }
}

/**
 * Checks the answers to open input requests (by key; keys of no open request are ignored): one that does
 * not fit its request is -32602. Shared by the instance running a task and the one a tasks/update reached.
 */
export function checkAnswers(
  open: ReadonlyMap<string, InputRequest> | Readonly<Record<string, InputRequest>>,
  responses: Record<string, unknown>,
): void {
  // instanceof narrows to Map<any, any>: the map's own types are said again.
  const get = (key: string): InputRequest | undefined =>
    open instanceof Map
      ? (open as ReadonlyMap<string, InputRequest>).get(key)
      : Object.prototype.hasOwnProperty.call(open, key)
        ? (open as Record<string, InputRequest>)[key]
        : undefined;
  for (const [key, value] of Object.entries(responses)) {
    const p = get(key);
    const fits =
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      INPUT_KINDS[p?.method ?? '']?.answer(value as Record<string, unknown>);
    if (p && !fits)
      throw McpError.invalidParams(`Invalid params: inputResponses["${key.slice(0, 64)}"] is not a valid answer to ${p.method}`);
  }
}

/** The wire form of a task's request or notification has no related-task `_meta` (the task is implied). */
export function withoutTaskMeta(params: Record<string, unknown>): Record<string, unknown> {
  const meta = params._meta as Record<string, unknown> | undefined;
  if (!meta || !(RELATED_TASK in meta)) return params;
  const { [RELATED_TASK]: _related, ...rest } = meta;
  const { _meta: _m, ...others } = params;
  return Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others;
}
