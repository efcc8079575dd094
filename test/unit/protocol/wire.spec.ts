import { checkMessage, decodeMessage, echo, encodeMessage, MAX_ERROR_MESSAGE_CHARS, RawJson } from '../../../src/protocol/wire';

describe('wire', () => {
  it('writes a result that is already JSON text as its value', () => {
    const text = encodeMessage({ jsonrpc: '2.0', id: 'a"b', result: new RawJson('{"tools":[]}') });
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: 'a"b', result: { tools: [] } });
  });

  it('writes a result with _meta as it is, and leaves the result as it was', () => {
    const meta = { 'io.modelcontextprotocol/serverInfo': { name: 'n', version: '1' } };
    const result: Record<string, unknown> = { resultType: 'complete', content: [{ type: 'text', text: 'x"y' }], _meta: meta };
    const message = { jsonrpc: '2.0' as const, id: 7, result };
    expect(JSON.parse(encodeMessage(message))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {
        resultType: 'complete',
        content: [{ type: 'text', text: 'x"y' }],
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'n', version: '1' } },
      },
    });
    expect(result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'x"y' }], _meta: meta });
  });

  it('serializes to its value anywhere else (stored events, published envelopes)', () => {
    expect(JSON.stringify({ jsonrpc: '2.0', id: 1, result: new RawJson('{"tools":[{"name":"a"}]}') })).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}]}}',
    );
  });

  it.each([
    ['{"jsonrpc":"2.0","id":1,"method":"ping"}', true],
    ['{"jsonrpc":"2.0","method":"notifications/initialized"}', true],
    ['{"jsonrpc":"2.0","id":"x","result":{}}', true],
    ['{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}', true],
  ])('accepts %s', (text, ok) => {
    expect(decodeMessage(text).ok).toBe(ok);
  });

  it.each([
    ['{', -32700, null],
    ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600, null],
    ['{"jsonrpc":"2.0","id":1.5e400,"method":"ping"}', -32600, null],
    ['{"id":3,"method":"ping"}', -32600, 3],
    ['{"jsonrpc":"2.0","id":4,"method":7}', -32600, 4],
    ['{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600, null],
    ['{"jsonrpc":"2.0","id":5}', -32600, 5],
    ['null', -32600, null],
  ])('rejects %s with %d', (text, code, id) => {
    const r = decodeMessage(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ id, error: { code } });
  });

  it('checks already-parsed values the same way', () => {
    expect(checkMessage({ jsonrpc: '2.0', id: 1, method: 'x', params: 'no' })).toMatchObject({
      ok: false,
      error: { id: 1, error: { code: -32600 } },
    });
  });
});

describe('encodeMessage never throws', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = [];
    for (let i = 0; i < depth; i++) value = [value];
    return value;
  };
  const unserializable = (): never => {
    throw new RangeError('Maximum call stack size exceeded');
  };
  const cyclic = (): unknown => {
    const a: Record<string, unknown> = { a: 1 };
    a.self = a;
    return a;
  };

  it.each([
    // How deep JSON.stringify can go depends on the Node line (Node 26 serializes 10,000 levels): what counts is that it throws.
    ['a result that throws when serialized', { jsonrpc: '2.0', id: 7, result: { toJSON: unserializable } }],
    ['a cyclic result', { jsonrpc: '2.0', id: 'c', result: cyclic() }],
    ['a BigInt in a result', { jsonrpc: '2.0', id: 'b', result: { n: BigInt(1) } }],
    [
      'error data nested 10,000 deep',
      { jsonrpc: '2.0', id: 8, error: { code: -32602, message: 'Invalid cursor', data: { cursor: nested(10_000) } } },
    ],
  ] as const)('answers %s with a -32603 error for the same id, and logs one line', (_label, message) => {
    const lines: string[] = [];
    const text = encodeMessage(message, (line) => lines.push(line));
    const parsed = JSON.parse(text);
    expect(parsed.jsonrpc).toBe('2.0');
    expect(parsed.id).toBe(message.id);
    if ('result' in message) {
      expect(parsed.error).toEqual({ code: -32603, message: expect.stringMatching(/could not be serialized/) });
      expect(lines).toHaveLength(1);
      expect(lines[0]).not.toMatch(/\n/);
    } else {
      // An error's data that cannot be sent is dropped; the error itself still goes out.
      expect(parsed.error).toEqual({ code: -32602, message: 'Invalid cursor' });
    }
  });

  it('replaces an unserializable notification by a short log message', () => {
    const text = encodeMessage(
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: cyclic() } },
      () => undefined,
    );
    expect(JSON.parse(text)).toMatchObject({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error' } });
  });

  it('bounds what an error echoes: long messages are cut, large data is dropped', () => {
    const text = encodeMessage({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32601, message: `Method not found: ${'m'.repeat(100_000)}`, data: { echo: 'd'.repeat(100_000) } },
    });
    const parsed = JSON.parse(text);
    expect(parsed.error.code).toBe(-32601);
    expect(parsed.error.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS + 1);
    expect(parsed.error.message.startsWith('Method not found: mmm')).toBe(true);
    expect(parsed.error.data).toBeUndefined();
    expect(text.length).toBeLessThan(2 * MAX_ERROR_MESSAGE_CHARS);
  });

  it('keeps small error data as it is', () => {
    const text = encodeMessage({
      jsonrpc: '2.0',
      id: 'r',
      error: { code: -32002, message: 'Resource not found', data: { uri: 'file:///x' } },
    });
    expect(JSON.parse(text)).toEqual({
      jsonrpc: '2.0',
      id: 'r',
      error: { code: -32002, message: 'Resource not found', data: { uri: 'file:///x' } },
    });
  });
});

describe('echo', () => {
  it('shortens strings and never returns a client structure', () => {
    expect(echo('abc')).toBe('abc');
    expect((echo('x'.repeat(10_000)) as string).length).toBeLessThanOrEqual(65);
    expect(echo(5)).toBe(5);
    expect(echo(null)).toBe(null);
    expect(echo({ a: [1] })).toBe('(an object)');
    expect(echo([1, 2])).toBe('(an array)');
  });
});
