import { Negotiation } from '../../../src/http/negotiation';

// Each case asked twice of one Negotiation: an answer remembered for one header value is never another's.
describe('Negotiation.accepts', () => {
  const negotiation = new Negotiation();
  const accepts = (accept: string, ...types: string[]) => negotiation.accepts(accept, types);

  it('reads each Accept header on its own, whichever was read before', () => {
    for (let i = 0; i < 2; i++) {
      expect([
        accepts('application/json, text/event-stream', 'application/json'),
        accepts('application/json, text/event-stream', 'text/event-stream'),
      ]).toEqual([true, true]);
      expect([accepts('Application/JSON;q=0.9', 'application/json'), accepts('Application/JSON;q=0.9', 'text/event-stream')]).toEqual([
        true,
        false,
      ]);
      expect([accepts('*/*', 'application/json'), accepts('*/*', 'text/event-stream')]).toEqual([true, true]);
      expect([accepts('text/*', 'application/json'), accepts('text/*', 'text/event-stream')]).toEqual([false, true]);
      expect(accepts('', 'application/json')).toBe(false);
    }
  });

  it('takes a type given q=0 as refused, even where a wildcard would admit it', () => {
    for (let i = 0; i < 2; i++) {
      const refused = 'application/json, text/event-stream;q=0';
      expect([accepts(refused, 'application/json'), accepts(refused, 'text/event-stream')]).toEqual([true, false]);
      expect(accepts('*/*, text/event-stream;q=0', 'text/event-stream')).toBe(false);
      expect(accepts('*/*;q=0', 'application/json')).toBe(false);
    }
  });

  it('accepts several types only when the header lists every one of them', () => {
    const both = ['application/json', 'text/event-stream'];
    for (let i = 0; i < 2; i++) {
      expect(accepts('application/json, text/event-stream', ...both)).toBe(true);
      expect(accepts('text/event-stream;q=0.5, */*;q=0.1', ...both)).toBe(true);
      expect(accepts('application/json', ...both)).toBe(false);
      expect(accepts('application/json, text/event-stream;q=0', ...both)).toBe(false);
      expect(accepts('', ...both)).toBe(false);
    }
  });

  it('keeps answering right past the number of header values it remembers', () => {
    for (let i = 0; i < 600; i++) expect(accepts(`application/json;q=0.${(i % 9) + 1}, x/y${i}`, 'application/json')).toBe(true);
    expect(accepts('text/html', 'application/json')).toBe(false);
  });
});

describe('Negotiation.mediaType', () => {
  it('reads each Content-Type header on its own, whichever was read before', () => {
    const negotiation = new Negotiation();
    for (let i = 0; i < 2; i++) {
      expect(negotiation.mediaType('application/json')).toBe('application/json');
      expect(negotiation.mediaType('Application/JSON; charset=utf-8')).toBe('application/json');
      expect(negotiation.mediaType('text/plain')).toBe('text/plain');
      expect(negotiation.mediaType('')).toBeUndefined();
    }
  });
});
