import { McpError } from '../mcp/mcp.error';
import { echo, RawJson } from './wire';

/** Longest cursor accepted: the cursors mcpkit and its stores issue are far shorter. */
export const MAX_CURSOR_CHARS = 512;

/**
 * The `cursor` param of a list request: absent, or a string of sane length. Anything else is the
 * client's mistake (-32602), checked here where the input enters, before a store sees it.
 */
export function readCursor(params: Record<string, unknown>): string | undefined {
  const cursor = params.cursor;
  if (cursor === undefined) return undefined;
  if (typeof cursor !== 'string') throw McpError.invalidParams('Invalid params: "cursor" must be a string', { cursor: echo(cursor) });
  if (cursor.length > MAX_CURSOR_CHARS) throw McpError.invalidParams('Invalid cursor', { cursor: echo(cursor) });
  return cursor;
}

/**
 * What one caller sees of a list. Callers with the same `key` see the same items and share serialized
 * pages; without a key (guards decided) nothing is cached.
 */
export interface ListView<T> {
  readonly key?: string;
  readonly items: () => readonly T[];
}

/** Distinct visibility classes whose pages are kept per list (least recently used ones are dropped). */
export const MAX_CACHED_VIEWS = 64;

interface CachedView<T> {
  items?: readonly T[];
  readonly pages: Map<number, RawJson>;
}

/**
 * Serves one list (tools, resources, templates, prompts) in pages. Cursors are opaque to clients
 * (base64url of the list's kind and an offset into the caller's view); each page is serialized once
 * per visibility class and then reused.
 */
export class Paginator<T> {
  private readonly views = new Map<string, CachedView<T>>();
  private readonly everything: ListView<T>;

  constructor(
    private readonly kind: string,
    private readonly key: string,
    items: () => readonly T[],
    private readonly pageSize: number,
    /** The source's version: pages serialized for another version are dropped. */
    private readonly version: () => number = () => 0,
  ) {
    this.everything = { key: '', items };
  }

  private seen = 0;

  /** A page of `view` (default: the whole list, one cache for every caller). */
  page(cursor: unknown, view: ListView<T> = this.everything): RawJson {
    const version = this.version();
    if (version !== this.seen) {
      this.views.clear();
      this.seen = version;
    }
    const cached = view.key === undefined ? { pages: new Map<number, RawJson>() } : this.cached(view.key);
    const items = () => (cached.items ??= view.items());
    const offset = this.offset(cursor, items);
    let page = cached.pages.get(offset);
    if (!page) {
      const all = items();
      const next = offset + this.pageSize;
      const result: Record<string, unknown> = { [this.key]: all.slice(offset, next) };
      if (next < all.length) result.nextCursor = encodeCursor(this.kind, next);
      page = new RawJson(JSON.stringify(result));
      cached.pages.set(offset, page);
    }
    return page;
  }

  private cached(key: string): CachedView<T> {
    let cached = this.views.get(key);
    if (cached) {
      // Most recently used last, so the first is the one to drop.
      this.views.delete(key);
    } else {
      cached = { pages: new Map() };
      if (this.views.size >= MAX_CACHED_VIEWS) this.views.delete(this.views.keys().next().value as string);
    }
    this.views.set(key, cached);
    return cached;
  }

  private offset(value: unknown, items: () => readonly T[]): number {
    if (value === undefined) return 0;
    const cursor = readCursor({ cursor: value });
    const offset = cursor === undefined ? undefined : decodeCursor(this.kind, cursor);
    if (offset === undefined || offset >= Math.max(1, items().length)) {
      throw McpError.invalidParams('Invalid cursor', { cursor: echo(cursor) });
    }
    return offset;
  }
}

function encodeCursor(kind: string, offset: number): string {
  return Buffer.from(`${kind}:${offset}`).toString('base64url');
}

function decodeCursor(kind: string, cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined;
  const m = /^([a-z]+):(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m && m[1] === kind ? Number(m[2]) : undefined;
}
