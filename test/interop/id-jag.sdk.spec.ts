import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpContext, McpModule, Tool } from '../../src';
import { OAuthProxy } from '../../src/auth';
import { httpTransport } from '../../src/http';
import { runDpopClient } from '../helpers/dpop-client';
import { jwksServer, testKey, type TestKey } from '../helpers/jwks-server';
import { type ProxySite, startProxySite } from '../helpers/upstream-idp';

@injectable()
class WhoTools {
  @Tool({ description: 'Tells who is calling' })
  whoami(_: EmptyInput, ctx: McpContext) {
    return `${ctx.auth?.subject} via ${ctx.auth?.clientId} with ${ctx.auth?.scopes?.join(' ')}`;
  }
}

@McpModule({ providers: [WhoTools], server: { name: 'enterprise', version: '1.0.0' } })
class WhoModule {}

const IDP = 'https://idp.example.test';
const OTHER_IDP = 'https://other-idp.example.test';
const THIRD_IDP = 'https://third-idp.example.test';

/**
 * Enterprise-managed authorization (MCP ext-auth, ID-JAG): the OAuth proxy's token endpoint takes an
 * identity assertion JWT authorization grant from an identity provider it trusts (here one signing with
 * its own JWKS), and refuses every other assertion with RFC 6749's errors. The official SDK 2.x client's
 * CrossAppAccessProvider presents one and calls tools with the token, bound to its DPoP key.
 */
describe('the ID-JAG grant at the OAuth proxy', () => {
  let site: ProxySite;
  let origin: string;
  let resource: string;
  let app: McpApplication;
  let idpKeys: Awaited<ReturnType<typeof jwksServer>>;
  let idpKey: TestKey;
  let confidential: { client_id: string; client_secret: string };

  beforeAll(async () => {
    site = await startProxySite();
    ({ origin, resource } = site);
    idpKey = await testKey('idp-key');
    idpKeys = await jwksServer([idpKey]);
    const proxy = new OAuthProxy({
      issuer: origin,
      resource,
      upstream: site.upstream,
      scopesSupported: ['mcp:tools', 'mcp:admin'],
      enterprise: {
        identityProviders: [
          // The IdP's scope chat.read is this server's mcp:tools; its other scopes grant nothing here.
          { issuer: IDP, jwksUri: idpKeys.url, scopes: { 'chat.read': 'mcp:tools' }, subject: (c) => `corp:${String(c.sub)}` },
          { issuer: OTHER_IDP, jwksUri: idpKeys.url, clients: ['only-this-client'], subject: (c) => `other:${String(c.sub)}` },
          // No subject mapping: the upstream provider's users keep their sub, another provider's are qualified by its issuer.
          { issuer: THIRD_IDP, jwksUri: idpKeys.url },
          { issuer: site.upstream.issuer, jwksUri: idpKeys.url },
        ],
      },
      logError: () => undefined,
    });
    app = await McpApplication.create(WhoModule, { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
    const transport = httpTransport(app, {
      oauthProxy: proxy,
      auth: { authorizationServers: [origin], resource, scopesSupported: ['mcp:tools'], verifier: proxy.verifier(), dpop: {} },
    });
    site.serve(transport.callback());
    confidential = (await (
      await fetch(`${origin}/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Enterprise agent',
          redirect_uris: ['http://127.0.0.1:9/cb'],
          token_endpoint_auth_method: 'client_secret_basic',
        }),
      })
    ).json()) as { client_id: string; client_secret: string };
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await idpKeys?.close();
    await site?.stop();
  });

  /** An ID-JAG as the identity provider issues it after a token exchange (draft-ietf-oauth-identity-assertion-authz-grant §3). */
  function idJag(claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      iss: IDP,
      sub: 'alice',
      aud: origin,
      client_id: confidential.client_id,
      jti: randomUUID(),
      iat: now,
      exp: now + 300,
      resource,
      scope: 'chat.read chat.history',
      ...claims,
    })
      .setProtectedHeader({ alg: 'RS256', kid: idpKey.kid, typ: 'oauth-id-jag+jwt', ...header })
      .sign(idpKey.privateKey);
  }

  function present(
    assertion: string,
    client: { client_id: string; client_secret?: string } = confidential,
    extra: Record<string, string> = {},
    dpop?: string,
  ) {
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', ...(dpop ? { DPoP: dpop } : {}) };
    if (client.client_secret)
      headers.Authorization = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    const body = { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion, ...extra };
    if (!client.client_secret) Object.assign(body, { client_id: client.client_id });
    return fetch(`${origin}/token`, { method: 'POST', headers, body: new URLSearchParams(body) });
  }

  async function expectError(res: Response, error: string, description?: RegExp) {
    expect(res.status).toBe(error === 'invalid_client' ? 401 : 400);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe(error);
    if (description) expect(body.error_description).toMatch(description);
  }

  it('serves the official client: CrossAppAccessProvider, then tools as the assertion’s user and client, in both eras', async () => {
    for (const mode of ['legacy', '2026-07-28']) {
      const seen = await runDpopClient({
        FLOW: 'id-jag',
        MODE: mode,
        ISSUER: origin,
        MCP_URL: resource,
        CLIENT_ID: confidential.client_id,
        CLIENT_SECRET: confidential.client_secret,
        ASSERTION: await idJag(),
      });
      expect(seen.tokenType).toBe('DPoP');
      expect(seen.answers[0]).toBe(`corp:alice via ${confidential.client_id} with mcp:tools`);
    }
  }, 30_000);

  it('advertises the grant, and answers with a token carrying the mapped scopes and no refresh token', async () => {
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:jwt-bearer');
    expect(metadata.authorization_grant_profiles_supported).toEqual(['urn:ietf:params:oauth:grant-profile:id-jag']);
    const res = await present(await idJag());
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'mcp:tools' });
    expect(body.refresh_token).toBeUndefined();
    // Scopes named like an object's own properties map to nothing (not to a 500).
    const odd = await present(await idJag({ scope: 'constructor __proto__ toString chat.read' }));
    expect(odd.status).toBe(200);
    expect(((await odd.json()) as { scope: string }).scope).toBe('mcp:tools');
  });

  it('refuses assertions with the wrong audience, issuer, client, type or age, and one used twice', async () => {
    await expectError(
      await present(await idJag({ aud: 'https://elsewhere.example.test' })),
      'invalid_grant',
      /not issued for this authorization server/,
    );
    await expectError(await present(await idJag({ aud: [origin, 'https://elsewhere.example.test'] })), 'invalid_grant', /other audiences/);
    await expectError(
      await present(await idJag({ iss: 'https://unknown-idp.example.test' })),
      'invalid_grant',
      /trusted identity provider/,
    );
    await expectError(await present(await idJag({ client_id: 'someone-else' })), 'invalid_grant', /another client/);
    await expectError(await present(await idJag({}, { typ: 'JWT' })), 'invalid_grant', /typ/);
    const past = Math.floor(Date.now() / 1000) - 3600;
    await expectError(await present(await idJag({ iat: past, exp: past + 300 })), 'invalid_grant', /expired/);
    const forged = await testKey('idp-key'); // the same kid, another key
    const unsigned = await new SignJWT({ iss: IDP, sub: 'mallory', aud: origin, client_id: confidential.client_id, jti: randomUUID() })
      .setProtectedHeader({ alg: 'RS256', kid: 'idp-key', typ: 'oauth-id-jag+jwt' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(forged.privateKey);
    await expectError(await present(unsigned), 'invalid_grant', /signature/);
    const once = await idJag();
    expect((await present(once)).status).toBe(200);
    await expectError(await present(once), 'invalid_grant', /used before/);
  });

  it("names the user by the provider's subject mapping, else the upstream's sub, else the sub qualified by its issuer", async () => {
    const subjectOf = async (iss: string) => {
      const res = await present(await idJag({ iss }));
      expect(res.status).toBe(200);
      return decodeJwt(((await res.json()) as { access_token: string }).access_token).sub;
    };
    expect(await subjectOf(IDP)).toBe('corp:alice');
    expect(await subjectOf(site.upstream.issuer)).toBe('alice');
    expect(await subjectOf(THIRD_IDP)).toBe(`${THIRD_IDP}#alice`);
  });

  it('binds the token to the key a cnf-bound assertion names, only with a proof of that key, and refuses a cnf it cannot check', async () => {
    const keys = await generateKeyPair('ES256');
    const jwk = await exportJWK(keys.publicKey);
    const jkt = await calculateJwkThumbprint(jwk);
    const proof = () =>
      new SignJWT({ htm: 'POST', htu: `${origin}/token`, jti: randomUUID() })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .setIssuedAt()
        .sign(keys.privateKey);
    await expectError(await present(await idJag({ cnf: { jkt } })), 'invalid_grant', /bound to a key/);
    const other = await generateKeyPair('ES256');
    const otherProof = await new SignJWT({ htm: 'POST', htu: `${origin}/token`, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(other.publicKey) })
      .setIssuedAt()
      .sign(other.privateKey);
    await expectError(await present(await idJag({ cnf: { jkt } }), confidential, {}, otherProof), 'invalid_grant', /bound to a key/);
    const bound = await present(await idJag({ cnf: { jkt } }), confidential, {}, await proof());
    expect(bound.status).toBe(200);
    const body = (await bound.json()) as { token_type: string; access_token: string };
    expect(body.token_type).toBe('DPoP');
    expect(decodeJwt(body.access_token).cnf).toEqual({ jkt });
    await expectError(await present(await idJag({ cnf: jkt })), 'invalid_grant', /cnf/);
    await expectError(await present(await idJag({ cnf: { 'x5t#S256': jkt } }), confidential, {}, await proof()), 'invalid_grant', /cnf/);
  });

  it('takes an assertion without a resource claim for the server it serves, and refuses a malformed one', async () => {
    const res = await present(await idJag({ resource: undefined }));
    expect(res.status).toBe(200);
    expect(decodeJwt(((await res.json()) as { access_token: string }).access_token).aud).toBe(resource);
    await expectError(await present(await idJag({ resource: 42 })), 'invalid_grant', /resource claim/);
    await expectError(await present(await idJag({ resource: [resource, 7] })), 'invalid_grant', /resource claim/);
  });

  it('refuses a public client, a client the provider does not allow, a bad secret, a foreign resource and scopes it cannot grant', async () => {
    const registered = (await (
      await fetch(`${origin}/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ client_name: 'Public', redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }),
      })
    ).json()) as { client_id: string };
    await expectError(await present(await idJag({ client_id: registered.client_id }), registered), 'unauthorized_client');
    await expectError(await present(await idJag({ iss: OTHER_IDP })), 'unauthorized_client', /may not present/);
    await expectError(await present(await idJag(), { ...confidential, client_secret: 'wrong' }), 'invalid_client');
    await expectError(await present(await idJag({ resource: 'https://another-server.example.test/mcp' })), 'invalid_grant', /resource/);
    await expectError(await present(await idJag(), confidential, { scope: 'mcp:admin' }), 'invalid_scope');
    await expectError(await present(''), 'invalid_request', /assertion/);
  });
});
