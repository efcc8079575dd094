import { RequestContexts } from '../../../src/observability/request-contexts';

describe('RequestContexts (the context of each request being served)', () => {
  it('keeps one request of a session, then several, each found by its id until it is deleted', () => {
    const contexts = new RequestContexts<string>();
    const session = {};
    contexts.set(session, 1, 'a');
    expect(contexts.get(session, 1)).toBe('a');
    expect(contexts.get(session, 2)).toBeUndefined();
    contexts.set(session, 2, 'b');
    contexts.set(session, '3', 'c');
    expect([contexts.get(session, 1), contexts.get(session, 2), contexts.get(session, '3')]).toEqual(['a', 'b', 'c']);
    contexts.delete(session, 2);
    expect(contexts.get(session, 2)).toBeUndefined();
    expect(contexts.get(session, 1)).toBe('a');
    contexts.delete(session, 1);
    contexts.delete(session, '3');
    expect(contexts.size).toBe(0);
  });

  it('tells sessions apart, and forgets a session with its last request', () => {
    const contexts = new RequestContexts<string>();
    const one = {};
    const other = {};
    contexts.set(one, 1, 'one');
    contexts.set(other, 1, 'other');
    expect([contexts.get(one, 1), contexts.get(other, 1)]).toEqual(['one', 'other']);
    contexts.delete(one, 2);
    expect(contexts.size).toBe(2);
    contexts.delete(one, 1);
    contexts.delete(other, 1);
    expect(contexts.size).toBe(0);
    expect(contexts.get(one, 1)).toBeUndefined();
  });

  it('a request id used again replaces its context', () => {
    const contexts = new RequestContexts<string>();
    const session = {};
    contexts.set(session, 1, 'old');
    contexts.set(session, 1, 'new');
    expect(contexts.get(session, 1)).toBe('new');
    contexts.delete(session, 1);
    expect(contexts.size).toBe(0);
  });
});
