import { inNodeRange } from '../../../src/cli/node-range';

describe('whether a Node version is in an engines range', () => {
  it.each([
    ['>=22', 'v22.0.0', true],
    ['>=22', 'v20.19.1', false],
    ['>= 22.12', 'v22.11.9', false],
    ['^22.12.0 || >=24', 'v23.1.0', false],
    ['^22.12.0 || >=24', 'v22.14.0', true],
    ['^22.12.0 || >=24', 'v26.0.0', true],
    ['~22.1', 'v22.1.7', true],
    ['~22.1', 'v22.2.0', false],
    ['22.x', 'v22.9.0', true],
    ['22', 'v23.0.0', false],
    ['>20 <=22', 'v22.99.0', true],
    ['>20 <=22', 'v21.0.0', true],
    ['>20 <=22', 'v20.5.0', false],
    ['20 - 22.4', 'v22.4.9', true],
    ['20 - 22.4', 'v22.5.0', false],
    ['*', 'v18.0.0', true],
  ])('%s takes %s: %s', (range, version, expected) => {
    expect(inNodeRange(version, range)).toBe(expected);
  });

  it('does not guess at a range it does not read', () => {
    expect(inNodeRange('v20.0.0', 'lts')).toBeUndefined();
    expect(inNodeRange('v20.0.0', '>=22 || current')).toBeUndefined();
    expect(inNodeRange('v24.0.0', '>=22 || current')).toBe(true);
  });
});
