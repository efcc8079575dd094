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
 * Serves one list (tools, resources, templates, prompts) in pages. Cursors are opaque to clients
 * (base64url of the list's kind and an offset); each page is serialized once and then reused.
 */
export class Paginator<T> {
  private readonly pages = new Map<number, RawJson>();

  constructor(
    private readonly kind: string,
    private readonly key: string,
    private readonly items: () => readonly T[],
    private readonly pageSize: number,
    /** The source's version: pages serialized for another version are dropped. */
    private readonly version: () => number = () => 0,
  ) {}

  private seen = 0;

  page(cursor: unknown): RawJson {
    const version = this.version();
    if (version !== this.seen) {
      this.pages.clear();
      this.seen = version;
    }
    const offset = this.offset(cursor);
    let page = this.pages.get(offset);
    if (!page) {
      const all = this.items();
      const next = offset + this.pageSize;
      const result: Record<string, unknown> = { [this.key]: all.slice(offset, next) };
      if (next < all.length) result.nextCursor = encodeCursor(this.kind, next);
      page = new RawJson(JSON.stringify(result));
      this.pages.set(offset, page);
    }
    return page;
  }

  private offset(value: unknown): number {
    if (value === undefined) return 0;
    const cursor = readCursor({ cursor: value });
    const offset = cursor === undefined ? undefined : decodeCursor(this.kind, cursor);
    if (offset === undefined || offset >= Math.max(1, this.items().length)) {
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
