import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuthProxy } from '../../src/auth';
import { Browser } from '../helpers/browser';
import { parseSummary, runConformance } from '../helpers/conformance';
import { CONFORMANCE_NEXT_CLI } from '../helpers/paths';
import { type ProxySite, startProxySite } from '../helpers/upstream-idp';

/** A loopback port free now, for the CLI's callback server. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

/**
 * The official conformance suite's authorization-server scenarios (0.2 alpha, `authorization`) against
 * the OAuth proxy in front of oidc-provider: its RFC 8414 metadata, then a whole authorization code
 * grant with PKCE and a resource indicator, the test playing the browser the suite asks the user for.
 */
describe('official MCP conformance suite: the OAuth proxy as the authorization server', () => {
  let site: ProxySite;
  let origin: string;

  beforeAll(async () => {
    site = await startProxySite();
    origin = site.origin;
    const proxy = new OAuthProxy({
      issuer: origin,
      resource: site.resource,
      upstream: site.upstream,
      consent: { skip: true },
      logError: () => undefined,
    });
    site.serve(proxy.listener());
  }, 30_000);

  afterAll(() => site?.stop());

  it('0.2.0-alpha.12 passes the metadata endpoint and the authorization code grant', async () => {
    const port = await freePort();
    const callback = `http://127.0.0.1:${port}/callback`;
    const registered = await fetch(`${origin}/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Conformance', redirect_uris: [callback], token_endpoint_auth_method: 'none' }),
    });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    let signedIn: Promise<void> | undefined;
    const { code, output } = await runConformance(
      process.execPath,
      CONFORMANCE_NEXT_CLI,
      ['authorization', '--url', origin, '--client-id', clientId, '--resource', `${origin}/mcp`, '--port', String(port)],
      60_000,
      (soFar) => {
        const url = /^(http:\S+\/authorize\?\S+)$/m.exec(soFar)?.[1];
        if (url && !signedIn) signedIn = signIn(url, callback);
      },
    );
    await signedIn;
    process.stdout.write(`${output.slice(output.lastIndexOf('=== SUMMARY ==='))}\n`);
    const { scenarios, total } = parseSummary(output);
    expect(scenarios.map(({ name, ok, failed }) => ({ name, ok, failed }))).toEqual([
      { name: 'authorization-server-metadata-endpoint', ok: true, failed: 0 },
      { name: 'authorization-code-grant', ok: true, failed: 0 },
    ]);
    expect({ failed: total?.failed, code }).toEqual({ failed: 0, code: 0 });
  }, 70_000);
});

/** What the user would do in the browser: sign in upstream, and land on the suite's callback. */
async function signIn(url: string, callback: string): Promise<void> {
  const back = await new Browser(callback).go(url);
  await fetch(back.url);
}
