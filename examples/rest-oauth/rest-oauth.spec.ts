import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { example, spawnExample } from '../../test/helpers/examples';
import { MemoryOAuthProvider, REDIRECT_URI } from '../../test/helpers/oauth-client';
import { authorizeWithoutBrowser, providerMetadata, startOidcProvider } from '../../test/helpers/oidc-provider';

/**
 * Three processes, as in a deployment: a real authorization server (oidc-provider), the tickets REST
 * API, and the example's MCP server between them; the official SDK client goes through the whole OAuth
 * flow (401, metadata, registration, PKCE, token), then steps up from tickets:read to tickets:write.
 */
describe('examples/rest-oauth', () => {
  const apiKey = 'example-api-key';
  let provider: Awaited<ReturnType<typeof startOidcProvider>>;
  let api: Awaited<ReturnType<typeof spawnExample>>;
  let server: Awaited<ReturnType<typeof spawnExample>>;

  beforeAll(async () => {
    provider = await startOidcProvider({ RESOURCE_SCOPES: 'tickets:read tickets:write' });
    api = await spawnExample(example('rest-oauth', 'serve-tickets-api.ts'), { TICKETS_API_KEY: apiKey });
    server = await spawnExample(example('rest-oauth'), {
      MCP_AUTH_ISSUER: provider.issuer,
      TICKETS_API_URL: api.url,
      TICKETS_API_KEY: apiKey,
    });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await api?.stop();
    await provider?.stop();
  });

  it('answers a request without a token with 401 and a challenge for tickets:read only', async () => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', server.url).href}", scope="tickets:read"`,
    );
  });

  it('reads with a tickets:read token, steps up to tickets:write to change tickets, and acts as the user', async () => {
    const url = new URL(server.url);
    const oauth = new MemoryOAuthProvider();
    // Registered for both scopes up front: oidc-provider grants a client only scopes it registered.
    const registered = await fetch((await providerMetadata(provider.issuer)).registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...oauth.clientMetadata, scope: 'tickets:read tickets:write' }),
    });
    oauth.saveClientInformation((await registered.json()) as { client_id: string });

    await expect(
      new Client({ name: 'tickets-user', version: '1' }).connect(new StreamableHTTPClientTransport(url, { authProvider: oauth })),
    ).rejects.toThrow(UnauthorizedError);
    expect(oauth.authorizationUrl!.searchParams.get('scope')).toBe('tickets:read');
    const transport = new StreamableHTTPClientTransport(url, { authProvider: oauth });
    await transport.finishAuth((await authorizeWithoutBrowser(oauth.authorizationUrl!, REDIRECT_URI)).get('code')!);
    const client = new Client({ name: 'tickets-user', version: '1' });
    await client.connect(transport);

    // A reader sees and uses the read tools only.
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['getTicket', 'listTickets']);
    const open = await client.callTool({ name: 'listTickets', arguments: { status: 'open' } });
    expect(open.structuredContent).toEqual({
      tickets: [{ id: 1, title: 'Printer on floor 2 is jammed', body: 'Again.', status: 'open', openedBy: 'ops' }],
    });
    expect(await client.callTool({ name: 'getTicket', arguments: { id: 9 } })).toMatchObject({
      isError: true,
      content: [{ text: 'no ticket 9' }],
    });

    // The user's token is for the MCP server only: the REST API does not take it.
    const direct = await fetch(new URL('/tickets', api.url), { headers: { authorization: `Bearer ${oauth.saved!.access_token}` } });
    expect(direct.status).toBe(401);

    // Writing needs tickets:write: the SDK gets 403 insufficient_scope and asks the user for the larger grant.
    oauth.authorizationUrl = undefined;
    await expect(client.callTool({ name: 'createTicket', arguments: { title: 'Coffee machine leaks' } })).rejects.toThrow(
      UnauthorizedError,
    );
    expect(oauth.authorizationUrl!.searchParams.get('scope')).toBe('tickets:read tickets:write');
    await transport.finishAuth((await authorizeWithoutBrowser(oauth.authorizationUrl!, REDIRECT_URI)).get('code')!);

    const created = await client.callTool({ name: 'createTicket', arguments: { title: 'Coffee machine leaks' } });
    expect(created.structuredContent).toEqual({ id: 3, title: 'Coffee machine leaks', body: '', status: 'open', openedBy: 'test-user' });
    const closed = await client.callTool({ name: 'closeTicket', arguments: { id: 3 } });
    expect(closed.structuredContent).toMatchObject({ id: 3, status: 'closed', closedBy: 'test-user' });
    expect(await client.callTool({ name: 'closeTicket', arguments: { id: 3 } })).toMatchObject({
      isError: true,
      content: [{ text: 'ticket 3 is already closed' }],
    });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['closeTicket', 'createTicket', 'getTicket', 'listTickets']);
    await client.close();
  }, 60_000);
});
