import { McpError } from '../../../src/mcp/mcp.error';
import { Paginator, readCursor } from '../../../src/protocol/pagination';

function caught(fn: () => unknown): McpError {
  try {
    fn();
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error('did not throw');
}

describe('pagination cursors', () => {
  const items = Array.from({ length: 5 }, (_, i) => ({ name: `t${i}` }));
  const pages = new Paginator('tools', 'tools', () => items, 2);

  it.each([
    ['a 10,000-deep array', (() => { let v: unknown = []; for (let i = 0; i < 10_000; i++) v = [v]; return v; })()],
    ['an object', { a: { b: 1 } }],
    ['a number', 4],
    ['a very long string', 'A'.repeat(100_000)],
  ])('rejects %s with -32602 and echoes only a short description of it', (_label, cursor) => {
    const error = caught(() => pages.page(cursor));
    expect(error.code).toBe(-32602);
    const echoed = JSON.stringify(error.data ?? null);
    expect(echoed.length).toBeLessThan(200);
  });

  it('readCursor lets a string or nothing through and refuses anything else with -32602', () => {
    expect(readCursor({})).toBeUndefined();
    expect(readCursor({ cursor: 'abc' })).toBe('abc');
    expect(caught(() => readCursor({ cursor: { a: 1 } })).code).toBe(-32602);
    expect(caught(() => readCursor({ cursor: 'x'.repeat(10_000) })).code).toBe(-32602);
  });
});
