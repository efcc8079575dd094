import { checkMessage, decodeMessage, encodeMessage, RawJson } from '../../../src/protocol/wire';

describe('wire', () => {
  it('splices pre-serialized results without re-encoding them', () => {
    const raw = new RawJson('{"tools":[]}');
    const stringify = jest.spyOn(JSON, 'stringify');
    const text = encodeMessage({ jsonrpc: '2.0', id: 'a"b', result: raw });
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: 'a"b', result: { tools: [] } });
    expect(stringify).toHaveBeenCalledTimes(1); // the id only
    stringify.mockRestore();
  });

  it('serializes to its value anywhere else (stored events, published envelopes)', () => {
    expect(JSON.stringify({ jsonrpc: '2.0', id: 1, result: new RawJson('{"tools":[{"name":"a"}]}') })).toBe('{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}]}}');
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
    expect(checkMessage({ jsonrpc: '2.0', id: 1, method: 'x', params: 'no' })).toMatchObject({ ok: false, error: { id: 1, error: { code: -32600 } } });
  });
});
