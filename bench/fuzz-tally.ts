/** What bench/fuzz.ts counts, and the checks every transport's runner shares. */
import type { FuzzInput } from './fuzz-inputs';

export interface FuzzCounts {
  sent: number;
  owed: number;
  answered: number;
  crashes: number;
  unanswered: number;
  nonJsonRpc: number;
  internalErrors: number;
}

export interface FuzzReport {
  seed: number;
  transports: Record<string, FuzzCounts>;
  /** Up to a few failing inputs per transport and kind. */
  failures: { transport: string; kind: string; mutation: string; method?: string; input: string; detail: string }[];
}

export interface FuzzOptions {
  /** Stop sending after this long (default: 60 s, or no limit when `messages` is given). */
  seconds?: number;
  /** Stop sending after this many inputs per transport, however long that takes (a test's measure: a loaded machine sends as many). */
  messages?: number;
  seed?: number;
  only?: 'stdio' | 'http';
  /** The server script (default: the built notes sample). */
  script?: string;
  /** How long an owed answer may take, in ms (default 10 s). */
  answerTimeoutMs?: number;
}

/** When a runner stops sending: after `messages` inputs or at `until` (epoch ms), whichever comes first. */
export interface FuzzBudget {
  readonly messages: number;
  readonly until: number;
}

/** Whether a runner may send another input. */
export function withinBudget(budget: FuzzBudget, tally: Tally): boolean {
  return tally.counts.sent < budget.messages && Date.now() < budget.until;
}

export const FAILURE_FIELDS = ['crashes', 'unanswered', 'nonJsonRpc', 'internalErrors'] as const;
const KEEP_PER_KIND = 5;

export type Answer = Record<string, unknown>;

export class Tally {
  readonly counts: FuzzCounts = { sent: 0, owed: 0, answered: 0, crashes: 0, unanswered: 0, nonJsonRpc: 0, internalErrors: 0 };
  constructor(
    readonly transport: string,
    private readonly report: FuzzReport,
  ) {}

  fail(kind: (typeof FAILURE_FIELDS)[number], input: FuzzInput | undefined, detail: string): void {
    this.counts[kind]++;
    if (this.report.failures.filter((f) => f.transport === this.transport && f.kind === kind).length >= KEEP_PER_KIND) return;
    this.report.failures.push({
      transport: this.transport,
      kind,
      mutation: input?.mutation ?? '-',
      method: input?.method,
      input: input ? input.bytes.toString('utf8', 0, Math.min(input.bytes.length, 20_000)) : '',
      detail: detail.slice(0, 1000),
    });
  }

  /** Checks one answer to an input: JSON-RPC, and not -32603. */
  answer(input: FuzzInput, message: unknown): void {
    if (!isJsonRpcResponse(message)) return this.fail('nonJsonRpc', input, JSON.stringify(message).slice(0, 300));
    const error = message.error as { code?: unknown; message?: unknown } | undefined;
    if (error?.code === -32603) this.fail('internalErrors', input, String(error.message));
  }
}

export function isJsonRpcResponse(m: unknown): m is Answer {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return false;
  const r = m as Answer;
  if (r.jsonrpc !== '2.0' || !('id' in r)) return false;
  if ('result' in r) return !('error' in r);
  const e = r.error as Answer | undefined;
  return typeof e === 'object' && e !== null && Number.isInteger(e.code) && typeof e.message === 'string';
}

export function taskIdOf(message: Answer): string | undefined {
  const task = (message.result as { task?: { taskId?: unknown } } | undefined)?.task;
  return typeof task?.taskId === 'string' ? task.taskId : undefined;
}

export const INIT = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
};

/** Waits for a promise at most `ms`, leaving no timer behind. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
