import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpContext, McpModule, Tool } from '../../src';
import { OAuthProxy } from '../../src/auth';
import { httpTransport } from '../../src/http';
import { runDpopClient } from '../helpers/dpop-client';
import { startUpstreamIdp } from '../helpers/upstream-idp';

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
  let server: Server;
  let origin: string;
  let app: McpApplication;
  let idp: Awaited<ReturnType<typeof startUpstreamIdp>>;

  beforeAll(async () => {
    let handler: (req: IncomingMessage, res: ServerResponse) => void = (_q, res) => res.end();
    server = createServer((req, res) => handler(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    idp = await startUpstreamIdp({ CLIENT_ID: 'mcp-proxy', CLIENT_SECRET: 'upstream-secret', REDIRECT_URI: `${origin}/callback` });
    const resource = `${origin}/mcp`;
    const proxy = new OAuthProxy({
      issuer: origin,
      resource,
      upstream: { issuer: idp.url, clientId: 'mcp-proxy', clientSecret: 'upstream-secret', scopes: ['openid'] },
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
    const listener = transport.callback();
    handler = (req, res) => void listener(req, res);
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    server?.close();
    await idp?.stop();
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
