import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { McpApplication } from '../../src';
import { Browser } from '../helpers/browser';
import { MemoryOAuthProvider, REDIRECT_URI } from '../helpers/oauth-client';
import { serveBehindProxy } from '../helpers/proxied-server';
import { type ProxySite, startProxySite } from '../helpers/upstream-idp';

/**
 * One mcpkit server that is both the resource server (`auth`) and, through the OAuth proxy, the
 * authorization server in front of an upstream IdP without dynamic registration (oidc-provider): the
 * official SDK client's transport goes from a 401 to a tool call with a token the proxy issued.
 */
describe('an mcpkit server with the OAuth proxy and the resource server, official SDK client', () => {
  let site: ProxySite;
  let origin: string;
  let app: McpApplication;

  beforeAll(async () => {
    site = await startProxySite();
    origin = site.origin;
    app = await serveBehindProxy(site);
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await site?.stop();
  });

  it('registers, consents, signs in upstream and calls a tool with the proxy’s token', async () => {
    const url = new URL(`${origin}/mcp`);
    const oauth = new MemoryOAuthProvider();
    await expect(
      new Client({ name: 'proxied', version: '1' }).connect(new StreamableHTTPClientTransport(url, { authProvider: oauth })),
    ).rejects.toThrow(UnauthorizedError);
    const authorizationUrl = oauth.authorizationUrl!;
    expect(authorizationUrl.origin).toBe(origin); // the proxy, not the upstream IdP
    expect(authorizationUrl.searchParams.get('resource')).toBe(url.href);

    const browser = new Browser(REDIRECT_URI);
    const consent = await browser.go(authorizationUrl.href);
    expect(consent.body).toContain('mcp:tools');
    const back = new URL((await browser.consent(consent, 'approve')).url);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: oauth });
    await transport.finishAuth(back.searchParams.get('code')!);

    const client = new Client({ name: 'proxied', version: '1' });
    await client.connect(transport);
    const result = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: { text: string }[] };
    expect(result.content[0].text).toBe('alice with mcp:tools');
    await client.close();
  }, 30_000);
});
