import { snapshotOf } from '../../../src/protocol/per-request/per-request-dispatch';
import { stableJson } from '../../../src/protocol/per-request/request-state';

/** What a round is bound to: the canonical JSON of the snapshot, read back as LazyBinding reads it. */
const canonical = (snapshot: ReturnType<typeof snapshotOf>) => stableJson(typeof snapshot === 'string' ? JSON.parse(snapshot) : snapshot);

describe('snapshotOf (the arguments a multi round-trip request is bound to)', () => {
  it.each([
    ['scalars', '{"s":"x","n":1.5,"t":true,"f":false,"z":null}'],
    ['nothing', '{}'],
    ['a nested object', '{"a":{"b":[1,{"c":2}]}}'],
    ['an array', '[1,2]'],
    ['a string', '"text"'],
    ['null', 'null'],
    ['a __proto__ member', '{"__proto__":null,"a":1}'],
    ['a __proto__ object member', '{"__proto__":{"x":1},"a":1}'],
  ])('gives the canonical JSON of the arguments as parsed, for %s', (_label, json) => {
    expect(canonical(snapshotOf(JSON.parse(json)))).toBe(stableJson(JSON.parse(json)));
  });

  it('copies an object of scalars, so later changes to the arguments do not reach it', () => {
    const args: Record<string, unknown> = { text: 'hi', n: 1 };
    const snapshot = snapshotOf(args);
    expect(typeof snapshot).toBe('object');
    args.text = 'changed';
    args.extra = true;
    expect(canonical(snapshot)).toBe('{"n":1,"text":"hi"}');
  });

  it('takes JSON text of anything nested, so a change inside does not reach it either', () => {
    const args = { deep: { value: 'a' } };
    const snapshot = snapshotOf(args);
    expect(typeof snapshot).toBe('string');
    args.deep.value = 'b';
    expect(canonical(snapshot)).toBe('{"deep":{"value":"a"}}');
  });

  it.each([
    ['undefined', { a: 1, b: undefined }],
    ['NaN', { a: Number.NaN }],
    ['Infinity', { a: Number.POSITIVE_INFINITY }],
  ])('writes %s members as JSON would, from an in-process caller', (_label, args) => {
    expect(canonical(snapshotOf(args))).toBe(stableJson(JSON.parse(JSON.stringify(args))));
  });

  it('leaves inherited members out, as JSON does', () => {
    const args = Object.assign(Object.create({ inherited: 1 }) as Record<string, unknown>, { own: 2 });
    expect(canonical(snapshotOf(args))).toBe('{"own":2}');
  });
});
