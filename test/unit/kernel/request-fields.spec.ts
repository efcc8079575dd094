import { AsyncLocalStorage } from 'node:async_hooks';
import { currentLogFields, RequestFields } from '../../../src/kernel/log-context';

describe('RequestFields', () => {
  afterEach(() => jest.restoreAllMocks());

  it('learns a kind that keeps answering synchronously, with the fields still seen by what it logs', () => {
    const run = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    const fields = new RequestFields();
    const seen: unknown[] = [];
    for (let id = 1; id <= 12; id++)
      void fields.run('tools/call', { name: 'echo' }, { requestId: id }, () => seen.push(currentLogFields()));
    expect(run).toHaveBeenCalledTimes(8);
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => ({ requestId: i + 1 })));
    expect(currentLogFields()).toBeUndefined();
  });

  it('keeps no long string a client sent: such a kind is served in the storage each time, unlearned', () => {
    const run = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    const fields = new RequestFields();
    const long = 'x'.repeat(10_000);
    for (let i = 0; i < 12; i++) void fields.run('tools/call', { name: long }, { requestId: i }, () => undefined);
    for (let i = 0; i < 12; i++) void fields.run(long, undefined, { requestId: i }, () => undefined);
    expect(run).toHaveBeenCalledTimes(24);
    expect((fields as unknown as { kinds: Map<string, unknown> }).kinds.size).toBe(0);
  });
});
