import { FetchExchange } from '../../../../src/transports/http/fetch-exchange';

/** A request to the fetch front door with these headers (and a body when one is given). */
const exchange = (headers: Record<string, string>, body?: string) =>
  new FetchExchange(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body }));

describe('FetchExchange.accepts', () => {
  const accepting = (accept: string) => exchange(accept ? { accept } : {});

  it('reads each Accept header on its own, whichever was read before', () => {
    for (let i = 0; i < 2; i++) {
      const both = accepting('application/json, text/event-stream');
      const jsonOnly = accepting('Application/JSON;q=0.9');
      const any = accepting('*/*');
      const texts = accepting('text/*');
      expect([both.accepts('application/json'), both.accepts('text/event-stream')]).toEqual([true, true]);
      expect([jsonOnly.accepts('application/json'), jsonOnly.accepts('text/event-stream')]).toEqual([true, false]);
      expect([any.accepts('application/json'), any.accepts('text/event-stream')]).toEqual([true, true]);
      expect([texts.accepts('application/json'), texts.accepts('text/event-stream')]).toEqual([false, true]);
      expect(accepting('').accepts('application/json')).toBe(false);
    }
  });

  it('takes a type given q=0 as refused, even where a wildcard would admit it', () => {
    const refused = accepting('application/json, text/event-stream;q=0');
    expect([refused.accepts('application/json'), refused.accepts('text/event-stream')]).toEqual([true, false]);
    expect(accepting('*/*, text/event-stream;q=0').accepts('text/event-stream')).toBe(false);
    expect(accepting('*/*;q=0').accepts('application/json')).toBe(false);
  });

  it('accepts several types only when the header lists every one of them', () => {
    const both = ['application/json', 'text/event-stream'];
    expect(accepting('application/json, text/event-stream').accepts(...both)).toBe(true);
    expect(accepting('text/event-stream;q=0.5, */*;q=0.1').accepts(...both)).toBe(true);
    expect(accepting('application/json').accepts(...both)).toBe(false);
    expect(accepting('application/json, text/event-stream;q=0').accepts(...both)).toBe(false);
    expect(accepting('').accepts(...both)).toBe(false);
  });
});

describe('FetchExchange.bodyIs', () => {
  it('reads each Content-Type header on its own, whichever was read before', () => {
    for (let i = 0; i < 2; i++) {
      expect(exchange({ 'content-type': 'application/json' }, '{}').bodyIs('application/json')).toBe(true);
      expect(exchange({ 'content-type': 'Application/JSON; charset=utf-8' }, '{}').bodyIs('application/json')).toBe(true);
      expect(exchange({ 'content-type': 'text/plain' }, '{}').bodyIs('application/json')).toBe(false);
      expect(exchange({ 'content-type': 'application/json' }).bodyIs('application/json')).toBe(false);
      expect(exchange({ 'content-type': '' }, '{}').bodyIs('application/json')).toBe(false);
    }
  });
});
