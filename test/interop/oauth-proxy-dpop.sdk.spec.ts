import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpContext, McpModule, Tool } from '../../src';
import { OAuthProxy } from '../../src/auth';
import { httpTransport } from '../../src/http';
import { runDpopClient } from '../helpers/dpop-client';
import { type ProxySite, startProxySite } from '../helpers/upstream-idp';

@injectable()
class WhoTools {
  @Tool({ description: 'Tells who is calling' })
  whoami(_: EmptyInput, ctx: McpContext) {
    return `${ctx.auth?.subject} with ${ctx.auth?.scopes?.join(' ')}`;
  }
}

@McpModule({ providers: [WhoTools], server: { name: 'proxied-dpop', version: '1.0.0' } })
class WhoModule {}

/**
 * DPoP through the OAuth proxy: one mcpkit server is the authorization server (the proxy, in front of an
 * oidc-provider without dynamic registration) and the resource server requiring DPoP-bound tokens with
 * nonces. The official SDK 2.x client with its own DPoP registers, signs in, gets a bound token from the
 * proxy with a proof, and calls tools with a proof each time, in both eras.
 */
describe('DPoP through the OAuth proxy, official SDK 2.x client', () => {
  let site: ProxySite;
  let origin: string;
  let app: McpApplication;

  beforeAll(async () => {
    site = await startProxySite();
    origin = site.origin;
    const resource = site.resource;
    const proxy = new OAuthProxy({
      issuer: origin,
      resource,
      upstream: { ...site.upstream, scopes: ['openid'] },
      scopesSupported: ['mcp:tools'],
      consent: { skip: true },
      logError: () => undefined,
    });
    app = await McpApplication.create(WhoModule, { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
    const transport = httpTransport(app, {
      oauthProxy: proxy,
      auth: {
        authorizationServers: [origin],
        resource,
        scopesSupported: ['mcp:tools'],
        verifier: proxy.verifier(),
        dpop: { mode: 'required', nonce: true },
      },
    });
    site.serve(transport.callback());
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await site?.stop();
  });

  it.each(['legacy', '2026-07-28'])(
    'signs in, gets a bound token and calls tools with proofs (%s)',
    async (mode) => {
      const seen = await runDpopClient({ MCP_URL: `${origin}/mcp`, FLOW: 'code', MODE: mode });
      expect(seen.tokenType).toBe('DPoP');
      expect(seen.answers).toEqual(['alice with mcp:tools', 'alice with mcp:tools']);
    },
    30_000,
  );
});
