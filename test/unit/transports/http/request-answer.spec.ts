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
