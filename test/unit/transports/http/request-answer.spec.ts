import { accepts, hasBodyOfType } from '../../../../src/transports/http/http-replies';
import { RequestGuards } from '../../../../src/transports/http/request-guards';
import { resolveHttpOptions } from '../../../../src/transports/http/http-options';
import { InMemoryEventStore } from '../../../../src/transports/http/event-store';
import type { HttpExchange } from '../../../../src/transports/http/http-exchange';

describe('RequestGuards.authenticate', () => {
  it('admits an anonymous caller on a server with no authentication, and runs an authenticate hook', async () => {
    const exchange = { headers: {}, method: 'POST', url: '/mcp' } as unknown as HttpExchange;
    const open = new RequestGuards(
      resolveHttpOptions({}, () => new InMemoryEventStore()),
      undefined,
      () => undefined,
    );
    expect(await open.authenticate(exchange)).toEqual({ auth: undefined });
    const hooked = new RequestGuards(
      resolveHttpOptions({ authenticate: () => ({ token: 't', clientId: 'c', scopes: [] }) }, () => new InMemoryEventStore()),
      undefined,
      () => undefined,
    );
    expect(await hooked.authenticate(exchange)).toMatchObject({ auth: { clientId: 'c' } });
  });
});

describe('accepts', () => {
  const exchange = (accept: string) => ({ header: (name: string) => (name === 'accept' ? accept : '') }) as unknown as HttpExchange;

  it('reads each Accept header on its own, whichever was read before (the last one is kept parsed)', () => {
    const both = exchange('application/json, text/event-stream');
    const jsonOnly = exchange('Application/JSON;q=0.9');
    const any = exchange('*/*');
    const texts = exchange('text/*');
    for (let i = 0; i < 2; i++) {
      expect([accepts(both, 'application/json'), accepts(both, 'text/event-stream')]).toEqual([true, true]);
      expect([accepts(jsonOnly, 'application/json'), accepts(jsonOnly, 'text/event-stream')]).toEqual([true, false]);
      expect([accepts(any, 'application/json'), accepts(any, 'text/event-stream')]).toEqual([true, true]);
      expect([accepts(texts, 'application/json'), accepts(texts, 'text/event-stream')]).toEqual([false, true]);
      expect(accepts(exchange(''), 'application/json')).toBe(false);
    }
  });
});

describe('hasBodyOfType', () => {
  const exchange = (type: string, hasBody = true) =>
    ({ hasBody, header: (name: string) => (name === 'content-type' ? type : '') }) as unknown as HttpExchange;

  it('reads each Content-Type header on its own, whichever was read before (the last one is kept parsed)', () => {
    for (let i = 0; i < 2; i++) {
      expect(hasBodyOfType(exchange('application/json'), 'application/json')).toBe(true);
      expect(hasBodyOfType(exchange('Application/JSON; charset=utf-8'), 'application/json')).toBe(true);
      expect(hasBodyOfType(exchange('text/plain'), 'application/json')).toBe(false);
      expect(hasBodyOfType(exchange('application/json', false), 'application/json')).toBe(false);
      expect(hasBodyOfType(exchange(''), 'application/json')).toBe(false);
    }
  });
});
