import { McpError } from '../../../src/mcp/mcp.error';
import { echo } from '../../../src/protocol/wire';
import { MAX_CACHED_VIEWS, Paginator, readCursor } from '../../../src/protocol/pagination';

type Page = { items: number[]; nextCursor?: string };

const read = (paginator: Paginator<number>, cursor?: unknown): Page => JSON.parse(paginator.page(cursor).json) as Page;

function rejectionOf(run: () => unknown): McpError {
  try {
    run();
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error('expected an McpError');
}

describe('Paginator', () => {
  const numbers = (n: number) => Array.from({ length: n }, (_, i) => i);

  it('serves the whole list on one page, without a cursor, when it fits', () => {
    const pages = new Paginator('tools', 'items', () => numbers(3), 3);
    expect(read(pages)).toEqual({ items: [0, 1, 2] });
  });

  it('walks every page through nextCursor, each item exactly once', () => {
    const pages = new Paginator('tools', 'items', () => numbers(7), 3);
    const seen: number[] = [];
    const cursors: string[] = [];
    let page = read(pages);
    seen.push(...page.items);
    while (page.nextCursor) {
      cursors.push(page.nextCursor);
      page = read(pages, page.nextCursor);
      seen.push(...page.items);
    }
    expect(seen).toEqual(numbers(7));
    expect(cursors).toHaveLength(2);
    expect(page.nextCursor).toBeUndefined();
  });

  it('emits no cursor when the last page is exactly full', () => {
    const pages = new Paginator('tools', 'items', () => numbers(4), 2);
    const second = read(pages, read(pages).nextCursor);
    expect(second).toEqual({ items: [2, 3] });
  });

  it('serves an empty list as one empty page', () => {
    const pages = new Paginator('tools', 'items', () => [], 10);
    expect(read(pages)).toEqual({ items: [] });
  });

  it('hands out opaque cursors that do not spell the offset', () => {
    const pages = new Paginator('tools', 'items', () => numbers(5), 2);
    const cursor = read(pages).nextCursor!;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toBe('2');
  });

  it('serializes a page once and reuses it while the source version holds', () => {
    const items = jest.fn(() => numbers(5));
    const pages = new Paginator('tools', 'items', items, 2);
    const first = pages.page(undefined);
    const calls = items.mock.calls.length;
    expect(pages.page(undefined)).toBe(first);
    expect(items.mock.calls.length).toBe(calls);
  });

  it('drops cached pages when the source version moves', () => {
    let list = numbers(2);
    let version = 1;
    const pages = new Paginator(
      'tools',
      'items',
      () => list,
      10,
      () => version,
    );
    expect(read(pages).items).toEqual([0, 1]);
    list = [7, 8, 9];
    expect(read(pages).items).toEqual([0, 1]); // same version: the cached page
    version = 2;
    expect(read(pages).items).toEqual([7, 8, 9]);
  });

  it.each([
    ['a number', 2],
    ['null', null],
    ['an empty string', ''],
    ['a non-base64url string', 'not a cursor!'],
    ['base64url of garbage', Buffer.from('garbage').toString('base64url')],
    ['an over-long string', 'A'.repeat(65)],
    ['a negative offset', Buffer.from('tools:-1').toString('base64url')],
  ])('refuses %s as a cursor with Invalid params (-32602)', (_, cursor) => {
    const pages = new Paginator('tools', 'items', () => numbers(5), 2);
    const error = rejectionOf(() => pages.page(cursor));
    expect(error.code).toBe(-32602);
    // The cursor is echoed back, cut to 64 characters (a client's value is never echoed unbounded).
    expect(error.data).toEqual({ cursor: echo(cursor) });
  });

  it("refuses another list's cursor", () => {
    const prompts = new Paginator('prompts', 'items', () => numbers(5), 2);
    const tools = new Paginator('tools', 'items', () => numbers(5), 2);
    const cursor = read(prompts).nextCursor;
    expect(rejectionOf(() => tools.page(cursor)).code).toBe(-32602);
  });

  it('refuses a cursor past the end, as after the list shrank', () => {
    let list = numbers(5);
    let version = 1;
    const pages = new Paginator(
      'tools',
      'items',
      () => list,
      2,
      () => version,
    );
    const third = read(pages, read(pages, read(pages).nextCursor).nextCursor);
    expect(third.items).toEqual([4]);
    list = numbers(2);
    version = 2;
    const stale = Buffer.from('tools:4').toString('base64url');
    expect(rejectionOf(() => pages.page(stale)).code).toBe(-32602);
  });
});

describe('pagination cursors', () => {
  const items = Array.from({ length: 5 }, (_, i) => ({ name: `t${i}` }));
  const pages = new Paginator('tools', 'tools', () => items, 2);

  it.each([
    [
      'a 10,000-deep array',
      (() => {
        let v: unknown = [];
        for (let i = 0; i < 10_000; i++) v = [v];
        return v;
      })(),
    ],
    ['an object', { a: { b: 1 } }],
    ['a number', 4],
    ['a very long string', 'A'.repeat(100_000)],
  ])('rejects %s with -32602 and echoes only a short description of it', (_label, cursor) => {
    const error = rejectionOf(() => pages.page(cursor));
    expect(error.code).toBe(-32602);
    const echoed = JSON.stringify(error.data ?? null);
    expect(echoed.length).toBeLessThan(200);
  });

  it('readCursor lets a string or nothing through and refuses anything else with -32602', () => {
    expect(readCursor({})).toBeUndefined();
    expect(readCursor({ cursor: 'abc' })).toBe('abc');
    expect(rejectionOf(() => readCursor({ cursor: { a: 1 } })).code).toBe(-32602);
    expect(rejectionOf(() => readCursor({ cursor: 'x'.repeat(10_000) })).code).toBe(-32602);
  });
});

describe('Paginator views (per-caller lists)', () => {
  const numbers = (n: number) => Array.from({ length: n }, (_, i) => i);

  it('pages each view on its own: cursors are offsets into that view, pages are cached per key', () => {
    const paginator = new Paginator('items', 'items', () => numbers(5), 2);
    const evens = { key: 'evens', items: jest.fn(() => [0, 2, 4]) };
    const first = paginator.page(undefined, evens);
    const { nextCursor } = JSON.parse(first.json) as Page;
    expect(JSON.parse(paginator.page(nextCursor, evens).json)).toEqual({ items: [4] });
    expect(paginator.page(undefined, { key: 'evens', items: () => [] })).toBe(first);
    expect(evens.items).toHaveBeenCalledTimes(1);
    expect(JSON.parse(paginator.page(undefined).json)).toEqual({ items: [0, 1], nextCursor: expect.any(String) });
    // A view without a key (decided by guards) is never cached, and its cursors are checked against it.
    const once = { items: () => [9] };
    expect(paginator.page(undefined, once)).not.toBe(paginator.page(undefined, once));
    expect(rejectionOf(() => paginator.page(nextCursor, once)).code).toBe(-32602);
  });

  it('keeps at most MAX_CACHED_VIEWS keyed views, dropping the least recently used', () => {
    const paginator = new Paginator<string>('items', 'items', () => [], 2);
    const view = (key: string) => ({ key, items: () => [key] });
    const kept = paginator.page(undefined, view('k0'));
    const dropped = paginator.page(undefined, view('k1'));
    for (let i = 2; i < MAX_CACHED_VIEWS; i++) paginator.page(undefined, view(`k${i}`));
    expect(paginator.page(undefined, view('k0'))).toBe(kept);
    paginator.page(undefined, view('one more'));
    expect(paginator.page(undefined, view('k0'))).toBe(kept);
    expect(paginator.page(undefined, view('k1'))).not.toBe(dropped);
  });
});
