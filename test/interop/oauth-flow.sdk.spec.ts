import { injectable } from 'tsyringe';
import request from 'supertest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { EmptyInput, McpApplication, McpContext, McpModule, Tool } from '../../src';
import { IntrospectionVerifier, JwtVerifier } from '../../src/auth';
import { MemoryOAuthProvider, REDIRECT_URI } from '../helpers/oauth-client';
import { authorizeWithoutBrowser, startOidcProvider } from '../helpers/oidc-provider';
import { httpServer, httpTransport } from '../../src/http';

@injectable()
class FlowTools {
  @Tool({ description: 'Tells who is calling' })
  whoami(_: EmptyInput, ctx: McpContext) {
    return `${ctx.auth?.subject} via ${ctx.auth?.clientId} with ${ctx.auth?.scopes?.join(',')}`;
  }
}

@McpModule({ providers: [FlowTools], server: { name: 'oauth-flow', version: '1.0.0' } })
class FlowModule {}

const quiet = { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } };
/** MCP authorization end to end: a real authorization server (oidc-provider), the official SDK client, mcpkit as the resource server. */
describe('OAuth authorization flow, official SDK client and oidc-provider', () => {
  let provider: Awaited<ReturnType<typeof startOidcProvider>>;
  beforeAll(async () => (provider = await startOidcProvider()));
  afterAll(() => provider.stop());

  it('goes from a 401 to metadata, dynamic registration, a PKCE authorization, a token and a tool call', async () => {
    const app = await McpApplication.create(FlowModule, quiet);
    const http = await app.listen(
      httpServer({
        port: 0,
        auth: {
          authorizationServers: [provider.issuer],
          scopesSupported: ['mcp:tools'],
          verifier: new JwtVerifier({ issuer: provider.issuer, jwksUri: `${provider.issuer}/jwks` }),
        },
      }),
    );
    try {
      await authorizeAndCall(new URL(http.url));
    } finally {
      await app.close();
    }
  }, 30_000);

  async function authorizeAndCall(url: URL) {
    const oauth = new MemoryOAuthProvider();

    const first = new Client({ name: 'oauth-flow', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: oauth }))).rejects.toThrow(UnauthorizedError);
    expect(oauth.information?.client_id).toEqual(expect.any(String)); // dynamically registered
    const authorizationUrl = oauth.authorizationUrl!;
    expect(authorizationUrl.origin).toBe(provider.issuer);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(url.href);
    expect(authorizationUrl.searchParams.get('scope')).toBe('mcp:tools');

    const answer = await authorizeWithoutBrowser(authorizationUrl, REDIRECT_URI);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: oauth });
    await transport.finishAuth(answer.get('code')!);
    expect(oauth.saved?.access_token.split('.')).toHaveLength(3); // a JWT, checked by JwtVerifier

    const client = new Client({ name: 'oauth-flow', version: '1.0.0' });
    await client.connect(transport);
    const result = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: { text: string }[] };
    expect(result.content[0].text).toBe(`test-user via ${oauth.information!.client_id} with mcp:tools`);
    await client.close();
  }

  describe('IntrospectionVerifier against oidc-provider', () => {
    const resource = 'http://127.0.0.1:1/opaque';
    async function introspectingApp() {
      const app = await McpApplication.create(FlowModule, quiet);
      const verifier = new IntrospectionVerifier({
        endpoint: `${provider.issuer}/token/introspection`,
        clientId: 'introspector',
        clientSecret: 'introspector-secret',
        issuer: provider.issuer,
      });
      const transport = httpTransport(app, { sessions: false, auth: { authorizationServers: [provider.issuer], resource, verifier } });
      return { app, callback: transport.callback() };
    }
    const callTool = (callback: Parameters<typeof request>[0], token: string) =>
      request(callback)
        .post('/mcp')
        .set({ Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25', Authorization: `Bearer ${token}` })
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });

    it('refuses a token the authorization server says is not active', async () => {
      const env = await introspectingApp();
      const res = await callTool(env.callback, 'not-a-token-it-issued');
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(
        /^Bearer error="invalid_token", error_description="The token is not active", resource_metadata="http:\/\/127\.0\.0\.1:1\/\.well-known\/oauth-protected-resource\/opaque"/,
      );
      await env.app.close();
    });

    it('accepts an active opaque token issued for the resource', async () => {
      const tokenResponse = await fetch(`${provider.issuer}/token`, {
        method: 'POST',
        headers: {
          Authorization: `Basic ${Buffer.from('introspector:introspector-secret').toString('base64')}`,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:tools', resource }).toString(),
      });
      const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
      expect(token.split('.')).toHaveLength(1); // opaque
      const env = await introspectingApp();
      const res = await callTool(env.callback, token);
      expect(res.status).toBe(200);
      expect(res.body.result.content[0].text).toBe('undefined via introspector with mcp:tools');
      await env.app.close();
    });
  });
});
