/**
 * Mutated JSON-RPC for bench/fuzz.ts: valid requests to the notes sample, then types swapped, deep
 * nesting, huge strings, prototype keys, wrong ids, unknown methods, truncated JSON, batches, binary
 * garbage, random cursors and task ids. Deterministic for a given seed.
 */

/** One input: the exact bytes to send, and the id a JSON-RPC answer must carry (when one is owed). */
export interface FuzzInput {
  bytes: Buffer;
  /** JSON of the id an answer is owed to, or undefined when none is (notification, garbage, batch). */
  owedId?: string;
  /** What was done to the request, for the report. */
  mutation: string;
  method?: string;
}

/** A small, fast PRNG (mulberry32): the same seed gives the same run. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Base = { method: string; params?: Record<string, Json> };

/** Requests the notes sample serves without asking the client anything back (no sampling, elicitation, roots). */
const BASES: Base[] = [
  { method: 'ping' },
  { method: 'tools/list', params: {} },
  { method: 'tools/list', params: { cursor: 'dG9vbHM6MQ' } },
  { method: 'tools/call', params: { name: 'addNote', arguments: { title: 'fuzz', body: 'body', tags: ['a'] } } },
  { method: 'tools/call', params: { name: 'search', arguments: { query: 'a', limit: 5, order: 'newest', filter: { tag: 'a' } } } },
  { method: 'tools/call', params: { name: 'deleteNote', arguments: { id: 'note-1' } } },
  { method: 'tools/call', params: { name: 'count', arguments: {} } },
  { method: 'tools/call', params: { name: 'reindex', arguments: { batches: 2, delayMs: 1 } } },
  { method: 'tools/call', params: { name: 'reindex', arguments: { batches: 2, delayMs: 1 }, task: { ttl: 60000 } } },
  { method: 'tools/call', params: { name: 'exportNotes', arguments: {}, task: { responseModes: ['streaming'] } } },
  { method: 'tools/call', params: { name: 'exportNotes', arguments: {} } },
  { method: 'resources/list', params: {} },
  { method: 'resources/templates/list', params: {} },
  { method: 'resources/read', params: { uri: 'notes://index' } },
  { method: 'resources/read', params: { uri: 'notes://note-1' } },
  { method: 'resources/read', params: { uri: 'notes://tags/a?limit=2' } },
  { method: 'resources/subscribe', params: { uri: 'notes://index' } },
  { method: 'resources/unsubscribe', params: { uri: 'notes://index' } },
  { method: 'prompts/list', params: {} },
  { method: 'prompts/get', params: { name: 'summarize-note', arguments: { id: 'note-1' } } },
  { method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'summarize-note' }, argument: { name: 'id', value: 'n' } } },
  { method: 'completion/complete', params: { ref: { type: 'ref/resource', uri: 'notes://{id}' }, argument: { name: 'id', value: '' } } },
  { method: 'logging/setLevel', params: { level: 'debug' } },
  { method: 'tasks/list', params: {} },
  { method: 'tasks/list', params: { cursor: 'dDE' } },
  { method: 'tasks/get', params: { taskId: 'b64-task-id' } },
  { method: 'tasks/result', params: { taskId: 'b64-task-id' } },
  { method: 'tasks/cancel', params: { taskId: 'b64-task-id' } },
  { method: 'tasks/result', params: { taskId: 'b64-task-id', lastSeqNr: 1 } },
  { method: 'tools/call', params: { name: 'reindex', arguments: { batches: 2, delayMs: 1 }, _meta: { progressToken: 'p1' } } },
  { method: 'tools/call', params: { name: 'exportNotes', arguments: {}, task: { responseModes: ['immediate', 'streaming'] } } },
  { method: 'tools/call', params: { name: 'reindex', arguments: { batches: 1, delayMs: 1 }, task: { responseModes: ['immediate'] } } },
  {
    method: 'completion/complete',
    params: {
      ref: { type: 'ref/prompt', name: 'summarize-note' },
      argument: { name: 'style', value: 'b' },
      context: { arguments: { id: 'note-1' } },
    },
  },
  { method: 'resources/read', params: { uri: 'notes://tags/%F0%9F%92%A5?limit=abc' } },
];

const ODD_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '', '\u0000', '💥'];

export class InputGenerator {
  private n = 0;
  /** Task ids the server handed out, reused now and then (so tasks/* reach real tasks). */
  readonly taskIds: string[] = [];

  constructor(
    private readonly rnd: () => number,
    /** Prefix of the ids: an answer is matched to its request by it. */
    private readonly idPrefix: string,
  ) {}

  private int(n: number): number {
    return Math.floor(this.rnd() * n);
  }
  private pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /**
   * A cancellation of one of the fuzzer's own requests, with a reason of any type. The request is
   * then owed no answer (the spec lets the server drop it).
   */
  cancel(requestId: string): Buffer {
    return Buffer.from(this.serialize({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: this.value() } }));
  }

  /** A value of any JSON type, sometimes nasty. */
  private value(): Json {
    switch (this.int(15)) {
      case 14:
        return JSON.parse(`{${JSON.stringify(this.pick(ODD_KEYS))}:1}`) as Json;
      case 0:
        return null;
      case 1:
        return this.rnd() < 0.5;
      case 2:
        return this.pick([0, -1, 1.5, 1e308, -1e308, 2 ** 53, 2 ** 31, 5e-324]);
      case 3:
        return this.pick(['', 'x', 'note-1', 'notes://{id}', '%00', '../../etc/passwd', 'connect ECONNREFUSED', '\ud800']);
      case 4:
        return 'A'.repeat(this.pick([1_000, 65_536, 1_000_000]));
      case 5:
        return [];
      case 6:
        return {};
      case 7:
        return this.deep(this.pick([100, 1_000, 10_000, 20_000]));
      case 8:
        return JSON.parse(`{${JSON.stringify(this.pick(ODD_KEYS))}:${JSON.stringify(this.pick([1, 'x', {}, { a: 1 }, null]))}}`) as Json;
      case 9:
        return Array.from({ length: this.pick([10, 1_000, 50_000]) }, (_, i) => i);
      case 10:
        return this.randomCursor();
      case 11:
        return this.taskIds.length > 0 ? this.pick(this.taskIds) : 'no-task';
      case 12:
        return { type: 'ref/prompt', name: this.pick(['summarize-note', 'x']) };
      default:
        return this.pick(['tools:1', 'dG9vbHM6OTk5OTk5OQ', 'dDk5OTk5', 'c3Mx']);
    }
  }

  /**
   * Nesting deeper than JSON.stringify can go (it recurses): a placeholder string stands in the tree
   * and is replaced by the raw text once the message is serialized.
   */
  private deep(depth: number): Json {
    return this.raw(this.rnd() < 0.5 ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}`);
  }

  private readonly raws = new Map<string, string>();

  private raw(text: string): string {
    const token = `\u0007raw${this.raws.size}\u0007`;
    this.raws.set(token, text);
    return token;
  }

  private serialize(message: unknown): string {
    let text = JSON.stringify(message);
    for (const [token, raw] of this.raws) text = text.split(JSON.stringify(token)).join(raw);
    this.raws.clear();
    return text;
  }

  private randomCursor(): string {
    const bytes = Buffer.alloc(1 + this.int(24));
    for (let i = 0; i < bytes.length; i++) bytes[i] = this.int(256);
    return bytes.toString(this.rnd() < 0.5 ? 'base64url' : 'latin1');
  }

  /** Replaces, adds or removes one member somewhere in an object tree. */
  private mutateTree(tree: Record<string, Json>): string {
    const paths: Record<string, Json>[] = [tree];
    for (const v of Object.values(tree)) if (v && typeof v === 'object' && !Array.isArray(v)) paths.push(v);
    const target = this.pick(paths);
    const keys = Object.keys(target);
    const action = this.int(4);
    if (action === 0 && keys.length > 0) {
      const key = this.pick(keys);
      target[key] = this.value();
      return `${key} := ${typeof target[key]}`;
    }
    if (action === 1 && keys.length > 0) {
      const key = this.pick(keys);
      delete target[key];
      return `-${key}`;
    }
    const key =
      this.rnd() < 0.6
        ? this.pick(ODD_KEYS)
        : this.pick(['cursor', 'name', 'uri', 'taskId', 'arguments', 'task', '_meta', 'lastSeqNr', 'level', 'extra']);
    Object.defineProperty(target, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
    return `+${key}`;
  }

  next(): FuzzInput {
    const id = `${this.idPrefix}${++this.n}`;
    const base = this.pick(BASES);
    const params = base.params ? (JSON.parse(JSON.stringify(base.params)) as Record<string, Json>) : undefined;
    if (params && 'taskId' in params)
      params.taskId = this.taskIds.length > 0 && this.rnd() < 0.7 ? this.pick(this.taskIds) : this.randomCursor();
    const message: Record<string, Json> = { jsonrpc: '2.0', id, method: base.method };
    if (params) message.params = params;
    const owed = JSON.stringify(id);
    const kind = this.int(20);
    const text = () => this.serialize(message);
    switch (kind) {
      case 0: // the request as it is
        return { bytes: Buffer.from(text()), owedId: owed, mutation: 'none', method: base.method };
      case 1:
      case 2:
      case 3:
      case 4:
      case 5: {
        // a param changed, dropped or added
        const what = this.mutateTree(params ?? (message.params = {}));
        return { bytes: Buffer.from(text()), owedId: owed, mutation: `params ${what}`, method: base.method };
      }
      case 6: {
        // the params swapped for another type
        message.params = this.value();
        return { bytes: Buffer.from(text()), owedId: owed, mutation: 'params swapped', method: base.method };
      }
      case 7: {
        // a wrong id: no answer is owed to it by this id
        if (this.rnd() < 0.3) {
          message.id = `${id}${'x'.repeat(100_000)}`;
          return { bytes: Buffer.from(text()), owedId: JSON.stringify(message.id), mutation: 'huge id', method: base.method };
        }
        message.id = this.pick([null, {}, [], true, this.raw('1.5e400'), this.deep(1_000)] as Json[]);
        return { bytes: Buffer.from(text()), mutation: 'bad id', method: base.method };
      }
      case 8: // an unknown method
        message.method = this.pick([
          'tools/explode',
          '',
          'initialize/../ping',
          '__proto__',
          'constructor',
          'x'.repeat(100_000),
          'notifications/cancelled',
        ]);
        return { bytes: Buffer.from(text()), owedId: owed, mutation: 'unknown method', method: String(message.method).slice(0, 40) };
      case 9: {
        // the method swapped for a value of another type
        message.method = this.value();
        return { bytes: Buffer.from(text()), owedId: owed, mutation: 'method type', method: base.method };
      }
      case 10: {
        // jsonrpc version wrong or missing
        if (this.rnd() < 0.5) delete message.jsonrpc;
        else message.jsonrpc = this.pick(['1.0', 2, null, '2.0 ']);
        return { bytes: Buffer.from(text()), owedId: owed, mutation: 'jsonrpc', method: base.method };
      }
      case 11: {
        // truncated JSON
        const t = text();
        return { bytes: Buffer.from(t.slice(0, 1 + this.int(t.length - 1))), mutation: 'truncated' };
      }
      case 12: // a batch: not supported, answered with id null
        return { bytes: Buffer.from(`[${text()},${text()}]`), mutation: 'batch' };
      case 13: {
        // binary garbage
        const bytes = Buffer.alloc(1 + this.int(2_000));
        for (let i = 0; i < bytes.length; i++) bytes[i] = this.int(256);
        for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) bytes[i] = 32; // one line over stdio
        return { bytes, mutation: 'garbage' };
      }
      case 14: {
        // a notification (no answer owed), sometimes one the server acts on
        delete message.id;
        let method = base.method;
        if (this.rnd() < 0.5) {
          method = this.pick([
            'notifications/cancelled',
            'notifications/initialized',
            'notifications/roots/list_changed',
            'notifications/progress',
          ]);
          message.method = method;
          // never one of our own ids: a cancelled request of ours would rightly go unanswered
          message.params = { requestId: this.pick([null, 'zz', 7, {}, 'x'.repeat(10_000)] as Json[]), reason: this.value() };
        }
        return { bytes: Buffer.from(text()), mutation: 'notification', method };
      }
      case 15: {
        // a response nobody asked for
        const response =
          this.rnd() < 0.5
            ? { jsonrpc: '2.0', id: this.pick(['s1', 's2', 1]), result: this.value() }
            : { jsonrpc: '2.0', id: 's1', error: { code: this.value(), message: this.value() } };
        return { bytes: Buffer.from(this.serialize(response)), mutation: 'stray response' };
      }
      case 16: {
        // a huge string somewhere in the params
        const p = params ?? (message.params = {});
        p[this.pick(['cursor', 'name', 'uri', 'taskId', 'level'])] = 'Z'.repeat(this.pick([10_000, 500_000, 2_000_000]));
        return { bytes: Buffer.from(text()), owedId: owed, mutation: 'huge string', method: base.method };
      }
      case 17: {
        // deep nesting in the params
        const p = params ?? (message.params = {});
        p[this.pick(['cursor', 'arguments', 'name', 'uri', 'task', '_meta', 'ref', 'argument'])] = this.deep(
          this.pick([1_000, 10_000, 30_000]),
        );
        return { bytes: Buffer.from(text()), owedId: owed, mutation: 'deep params', method: base.method };
      }
      case 18: {
        // a random cursor or task id
        const p = params ?? (message.params = {});
        p[this.rnd() < 0.5 ? 'cursor' : 'taskId'] = this.rnd() < 0.5 ? this.randomCursor() : this.value();
        return { bytes: Buffer.from(text()), owedId: owed, mutation: 'random cursor/task id', method: base.method };
      }
      default: {
        // several mutations at once
        const p = params ?? (message.params = {});
        const whats = [this.mutateTree(p), this.mutateTree(p), this.mutateTree(p)];
        return { bytes: Buffer.from(text()), owedId: owed, mutation: `params ${whats.join(', ')}`, method: base.method };
      }
    }
  }
}
