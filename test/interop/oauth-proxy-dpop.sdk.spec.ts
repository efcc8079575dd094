import type { McpApplication } from '../../src';
import { runDpopClient } from '../helpers/dpop-client';
import { serveBehindProxy } from '../helpers/proxied-server';
import { type ProxySite, startProxySite } from '../helpers/upstream-idp';

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
    app = await serveBehindProxy(site, { proxy: { consent: { skip: true } }, dpop: { mode: 'required', nonce: true } });
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
