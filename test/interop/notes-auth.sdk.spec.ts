import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { MemoryOAuthProvider, REDIRECT_URI } from '../helpers/oauth-client';
import { authorizeWithoutBrowser, startOidcProvider } from '../helpers/oidc-provider';
import { SAMPLE_MAIN } from '../helpers/paths';
import { spawnHttpServer } from '../helpers/spawn-server';

type Text = { content: { text: string }[] };

/**
 * The notes sample started with MCP_AUTH_ISSUER: every request needs a token from the authorization
 * server (oidc-provider); tokens start with notes:read, and deleting a note steps the official SDK
 * client up to notes:write through a 403 insufficient_scope.
 */
describe('notes sample with authorization: 401, then 403 insufficient_scope and step-up', () => {
  let provider: Awaited<ReturnType<typeof startOidcProvider>>;
  let server: Awaited<ReturnType<typeof spawnHttpServer>>;
  beforeAll(async () => {
    provider = await startOidcProvider({ RESOURCE_SCOPES: 'notes:read notes:write' });
    server = await spawnHttpServer(SAMPLE_MAIN, { MCP_AUTH_ISSUER: provider.issuer });
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
    await provider?.stop();
  });

  it('refuses a request without a token with 401 and the metadata URL', async () => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', server.url).href}", scope="notes:read"`,
    );
  });

  it('authorizes with notes:read, gets 403 insufficient_scope on deleteNote, steps up to notes:read notes:write and deletes', async () => {
    const url = new URL(server.url);
    const oauth = new MemoryOAuthProvider();
    // Registered once for every scope it may ever ask for (oidc-provider limits a client to the scopes it
    // registered, and the SDK registers with the first challenge's scope only): the step-up then asks for more.
    const metadata = (await (await fetch(new URL('/.well-known/openid-configuration', provider.issuer))).json()) as {
      registration_endpoint: string;
    };
    const registered = await fetch(metadata.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...oauth.clientMetadata, scope: 'notes:read notes:write' }),
    });
    oauth.saveClientInformation((await registered.json()) as { client_id: string });
    await expect(
      new Client({ name: 'notes-auth', version: '1' }).connect(new StreamableHTTPClientTransport(url, { authProvider: oauth })),
    ).rejects.toThrow(UnauthorizedError);
    expect(oauth.authorizationUrl!.searchParams.get('scope')).toBe('notes:read');
    const transport = new StreamableHTTPClientTransport(url, { authProvider: oauth });
    await transport.finishAuth((await authorizeWithoutBrowser(oauth.authorizationUrl!, REDIRECT_URI)).get('code')!);
    const client = new Client({ name: 'notes-auth', version: '1' });
    await client.connect(transport);
    const added = await client.callTool({ name: 'addNote', arguments: { title: 'temporary', body: 'x' } });
    const id = (added.structuredContent as { id: string }).id;

    // The token lacks notes:write: the server answers 403 insufficient_scope (checked raw), the SDK starts a step-up.
    const raw = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${oauth.saved!.access_token}`,
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'raw', method: 'tools/call', params: { name: 'deleteNote', arguments: { id } } }),
    });
    expect(raw.status).toBe(403);
    expect(raw.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_scope", scope="notes:read notes:write", resource_metadata="[^"]+"/,
    );
    expect(((await raw.json()) as { error: { code: number } }).error.code).toBe(-32003);

    oauth.authorizationUrl = undefined;
    await expect(client.callTool({ name: 'deleteNote', arguments: { id } })).rejects.toThrow(UnauthorizedError);
    expect(oauth.authorizationUrl!.searchParams.get('scope')).toBe('notes:read notes:write');
    const again = await authorizeWithoutBrowser(oauth.authorizationUrl!, REDIRECT_URI);
    expect(Object.fromEntries(again)).toMatchObject({ code: expect.any(String) });
    await transport.finishAuth(again.get('code')!);
    const deleted = (await client.callTool({ name: 'deleteNote', arguments: { id } })) as Text;
    expect(deleted.content[0].text).toBe(`Deleted ${id}`);
    await client.close();
  }, 30_000);
});
