import type { ServerResponse } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import * as jose from 'jose';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidTokenError, OAuthProxy } from '../../src/auth';
import { Browser } from '../helpers/browser';
import { type ProxySite, startProxySite } from '../helpers/upstream-idp';

/**
 * The OAuth proxy end to end: oidc-provider (no dynamic registration, one static client whose
 * redirect URI is the proxy's callback) as the upstream, the official SDK's OAuth client and plain
 * fetch as MCP clients, a cookie-keeping Browser for the redirects and the consent form.
 */
const CLIENT_REDIRECT = 'http://127.0.0.1:9/callback';
let site: ProxySite;
let origin: string;
let resource: string;
let proxy: OAuthProxy;
let cimdDocument: Record<string, unknown>;

beforeAll(async () => {
  site = await startProxySite();
  ({ origin, resource } = site);
  proxy = new OAuthProxy({
    issuer: origin,
    resource,
    upstream: { ...site.upstream, scopes: ['openid', 'email'] },
    scopesSupported: ['notes:read', 'notes:write'],
    clientMetadataDocuments: { allowLoopbackHttp: true },
    logError: () => undefined,
  });
  cimdDocument = {
    client_id: `${origin}/client.json`,
    client_name: 'Metadata client',
    redirect_uris: [CLIENT_REDIRECT],
    token_endpoint_auth_method: 'none',
  };
  const listener = proxy.listener();
  site.serve((req, res) => {
    // What the MCP server itself serves next to the proxy: its protected-resource metadata, and here a client's metadata document.
    if (req.url === '/.well-known/oauth-protected-resource/mcp') return json(res, { resource, authorization_servers: [origin] });
    if (req.url === '/client.json') return json(res, cimdDocument);
    if (req.url === '/bad-client.json') return json(res, { ...cimdDocument, client_id: 'https://elsewhere.example/client.json' });
    return listener(req, res);
  });
}, 30_000);

afterAll(() => site?.stop());

function json(res: ServerResponse, body: unknown) {
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

function tokenRequest(params: Record<string, string>) {
  return fetch(`${origin}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
}

/** Authorizes `clientId` through consent and the upstream; resolves with where the client was sent back. */
async function authorize(clientId: string, overrides: Record<string, string> = {}, stopAt = CLIENT_REDIRECT) {
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CLIENT_REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'client-state',
    scope: 'notes:read',
    resource,
    ...overrides,
  });
  const browser = new Browser(stopAt);
  const page = await browser.go(`${origin}/authorize?${query.toString()}`);
  return { browser, page, verifier };
}

async function codeFor(clientId: string) {
  const { browser, page, verifier } = await authorize(clientId);
  const back = new URL((await browser.consent(page, 'approve')).url);
  expect(back.searchParams.get('state')).toBe('client-state');
  return { code: back.searchParams.get('code')!, verifier };
}

async function registerPublicClient(): Promise<string> {
  const response = await fetch(`${origin}/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'Raw client', redirect_uris: [CLIENT_REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

describe('OAuth proxy in front of an OIDC provider without dynamic registration', () => {
  it('serves RFC 8414 metadata advertising PKCE S256, registration and client metadata documents', async () => {
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: origin,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
    const jwks = (await (await fetch(metadata.jwks_uri as string)).json()) as { keys: { kty: string; d?: string }[] };
    expect(jwks.keys[0].kty).toBe('EC');
    expect(jwks.keys[0].d).toBeUndefined();
  });

  it('takes the SDK client through registration, PKCE, consent, the upstream sign-in, the code exchange and a refresh; a revocation ends it', async () => {
    const saved: { client?: OAuthClientInformationMixed; tokens?: OAuthTokens; verifier?: string; redirect?: URL } = {};
    const metadata: OAuthClientMetadata = {
      client_name: 'SDK client',
      redirect_uris: [CLIENT_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'notes:read notes:write',
    };
    const provider: OAuthClientProvider = {
      redirectUrl: CLIENT_REDIRECT,
      clientMetadata: metadata,
      state: () => 'sdk-state',
      clientInformation: () => saved.client,
      saveClientInformation: (info) => void (saved.client = info),
      tokens: () => saved.tokens,
      saveTokens: (tokens) => void (saved.tokens = tokens),
      redirectToAuthorization: (url) => void (saved.redirect = url),
      saveCodeVerifier: (v) => void (saved.verifier = v),
      codeVerifier: () => saved.verifier!,
    };
    expect(await auth(provider, { serverUrl: resource })).toBe('REDIRECT');
    expect(saved.redirect!.searchParams.get('resource')).toBe(resource);
    const browser = new Browser(CLIENT_REDIRECT);
    const consent = await browser.go(saved.redirect!.toString());
    expect(consent.status).toBe(200);
    expect(consent.body).toContain('SDK client');
    expect(consent.body).toContain('notes:write');
    expect(consent.body).toContain('127.0.0.1:9');
    const back = new URL((await browser.consent(consent, 'approve')).url);
    expect(back.searchParams.get('state')).toBe('sdk-state');
    expect(await auth(provider, { serverUrl: resource, authorizationCode: back.searchParams.get('code')! })).toBe('AUTHORIZED');

    const first = saved.tokens!;
    const info = await proxy.verifier().verify(first.access_token, { resource });
    expect(info).toMatchObject({
      subject: 'alice',
      clientId: (saved.client as { client_id: string }).client_id,
      scopes: ['notes:read', 'notes:write'],
    });
    expect(info.claims).toMatchObject({ iss: origin, aud: resource });
    // The proxy's token is its own: the upstream's tokens stay on the server, reachable through the grant.
    const upstream = await proxy.upstreamTokens(info);
    expect(upstream?.access_token).toEqual(expect.any(String));
    expect(first.access_token).not.toContain(upstream!.access_token);
    await expect(proxy.verifier().verify(first.access_token, { resource: 'http://127.0.0.1:1/other' })).rejects.toBeInstanceOf(
      InvalidTokenError,
    );

    expect(await auth(provider, { serverUrl: resource })).toBe('AUTHORIZED');
    const second = saved.tokens!;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await proxy.verifier().verify(second.access_token, { resource })).subject).toBe('alice');

    const revoked = await fetch(`${origin}/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: second.refresh_token!, client_id: (saved.client as { client_id: string }).client_id }),
    });
    expect(revoked.status).toBe(200);
    await expect(proxy.verifier().verify(second.access_token, { resource })).rejects.toBeInstanceOf(InvalidTokenError);
    expect(await proxy.upstreamTokens(info)).toBeUndefined();
  });

  it('accepts a client ID metadata document as the client, and refuses one that names another client_id', async () => {
    const { code, verifier } = await codeFor(`${origin}/client.json`);
    const response = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: CLIENT_REDIRECT,
      client_id: `${origin}/client.json`,
      resource,
    });
    expect(response.status).toBe(200);
    const bad = await authorize(`${origin}/bad-client.json`);
    expect(bad.page.status).toBe(400);
    expect(JSON.parse(bad.page.body)).toMatchObject({ error: 'invalid_client' });
  });

  it('refuses a wrong PKCE verifier, and a code used twice', async () => {
    const clientId = await registerPublicClient();
    const wrong = await codeFor(clientId);
    const refused = await tokenRequest({
      grant_type: 'authorization_code',
      code: wrong.code,
      code_verifier: pkce().verifier,
      redirect_uri: CLIENT_REDIRECT,
      client_id: clientId,
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });

    const { code, verifier } = await codeFor(clientId);
    const exchange = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: CLIENT_REDIRECT,
      client_id: clientId,
      resource,
    };
    expect((await tokenRequest(exchange)).status).toBe(200);
    const again = await tokenRequest(exchange);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a redirect_uri that is not registered (without redirecting) and one that differs at the token endpoint', async () => {
    const clientId = await registerPublicClient();
    const { page } = await authorize(clientId, { redirect_uri: 'http://127.0.0.1:9/elsewhere' });
    expect(page.status).toBe(400);
    expect(JSON.parse(page.body)).toMatchObject({ error: 'invalid_request' });
    const { code, verifier } = await codeFor(clientId);
    const response = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: 'http://127.0.0.1:9/elsewhere',
      client_id: clientId,
    });
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a tampered upstream state at the callback', async () => {
    const clientId = await registerPublicClient();
    const { browser, page } = await authorize(clientId, {}, `${origin}/callback`);
    const callback = new URL((await browser.consent(page, 'approve')).url);
    const tampered = new URL(callback);
    tampered.searchParams.set('state', randomBytes(32).toString('base64url'));
    const response = await fetch(tampered);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
    // The genuine answer still completes; replayed, its state is gone.
    const genuine = await fetch(callback, { redirect: 'manual' });
    expect(new URL(genuine.headers.get('location')!).searchParams.get('code')).toEqual(expect.any(String));
    expect((await fetch(callback, { redirect: 'manual' })).status).toBe(400);
  });

  it('refuses a resource it does not serve, at /authorize and at /token', async () => {
    const clientId = await registerPublicClient();
    const { page } = await authorize(clientId, { resource: 'http://127.0.0.1:1/not-mine' });
    const back = new URL(page.url);
    expect(back.searchParams.get('error')).toBe('invalid_target');
    const { code, verifier } = await codeFor(clientId);
    const response = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: CLIENT_REDIRECT,
      client_id: clientId,
      resource: 'http://127.0.0.1:1/not-mine',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_target' });
  });

  it('sends a denial back as access_denied, refuses a consent without its CSRF cookie, and plain PKCE', async () => {
    const clientId = await registerPublicClient();
    const denied = await authorize(clientId);
    const back = new URL((await denied.browser.consent(denied.page, 'deny')).url);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('client-state');

    const forged = await authorize(clientId);
    const refused = await forged.browser.consent(forged.page, 'approve', { dropCookies: true });
    expect(refused.status).toBe(403);

    const plain = await authorize(clientId, { code_challenge_method: 'plain' });
    expect(new URL(plain.page.url).searchParams.get('error')).toBe('invalid_request');
  });

  it('answers RFC 6749 errors at the token endpoint', async () => {
    const unsupported = await tokenRequest({ grant_type: 'password', client_id: 'x' });
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toMatchObject({ error: 'unsupported_grant_type' });
    const unknownClient = await tokenRequest({ grant_type: 'authorization_code', client_id: 'nobody', code: 'x' });
    expect(unknownClient.status).toBe(401);
    expect(await unknownClient.json()).toMatchObject({ error: 'invalid_client' });
    const noRefresh = await tokenRequest({ grant_type: 'refresh_token', client_id: await registerPublicClient(), refresh_token: 'nope' });
    expect(await noRefresh.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('authenticates a confidential client by its secret, and revokes the whole grant when a rotated refresh token comes back', async () => {
    const registered = (await (
      await fetch(`${origin}/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ client_name: 'Confidential', redirect_uris: [CLIENT_REDIRECT] }),
      })
    ).json()) as { client_id: string; client_secret: string };
    const basic = (secret: string) => `Basic ${Buffer.from(`${registered.client_id}:${secret}`).toString('base64')}`;
    const post = (params: Record<string, string>, secret = registered.client_secret) =>
      fetch(`${origin}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic(secret) },
        body: new URLSearchParams(params),
      });
    const { code, verifier } = await codeFor(registered.client_id);
    const wrongSecret = await post(
      { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: CLIENT_REDIRECT },
      'not-the-secret',
    );
    expect(wrongSecret.status).toBe(401);
    expect(await wrongSecret.json()).toMatchObject({ error: 'invalid_client' });

    const again = await codeFor(registered.client_id);
    const first = (await (
      await post({ grant_type: 'authorization_code', code: again.code, code_verifier: again.verifier, redirect_uri: CLIENT_REDIRECT })
    ).json()) as OAuthTokens;
    const second = (await (await post({ grant_type: 'refresh_token', refresh_token: first.refresh_token! })).json()) as OAuthTokens;
    expect((await proxy.verifier().verify(second.access_token, { resource })).subject).toBe('alice');
    // Another client presenting the refresh token is refused, and the token stays its owner's.
    const stranger = { grant_type: 'refresh_token', client_id: await registerPublicClient(), refresh_token: second.refresh_token! };
    expect(await (await tokenRequest(stranger)).json()).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/another client/),
    });
    const third = await post({ grant_type: 'refresh_token', refresh_token: second.refresh_token! });
    expect(third.status).toBe(200);
    const thirdTokens = (await third.json()) as OAuthTokens;

    const replay = await post({ grant_type: 'refresh_token', refresh_token: first.refresh_token! });
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    await expect(proxy.verifier().verify(thirdTokens.access_token, { resource })).rejects.toBeInstanceOf(InvalidTokenError);
    expect(await (await post({ grant_type: 'refresh_token', refresh_token: thirdTokens.refresh_token! })).json()).toMatchObject({
      error: 'invalid_grant',
    });
  });

  describe('DPoP at the token endpoint', () => {
    async function proofFor(keys: jose.GenerateKeyPairResult<jose.KeyLike>, htu = `${origin}/token`) {
      return new jose.SignJWT({ htm: 'POST', htu, jti: randomBytes(16).toString('base64url') })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await jose.exportJWK(keys.publicKey) })
        .setIssuedAt()
        .sign(keys.privateKey);
    }
    const withProof = (params: Record<string, string>, dpop: string) =>
      fetch(`${origin}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', DPoP: dpop },
        body: new URLSearchParams(params),
      });

    it("binds a public client's tokens to its key, refreshes only with a proof of that key, and says so in the metadata", async () => {
      const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(metadata.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256']));
      const keys = await jose.generateKeyPair('ES256');
      const jkt = await jose.calculateJwkThumbprint(await jose.exportJWK(keys.publicKey));
      const clientId = await registerPublicClient();
      const { code, verifier } = await codeFor(clientId);
      const exchange = {
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        code_verifier: verifier,
        redirect_uri: CLIENT_REDIRECT,
      };
      const issued = (await (await withProof(exchange, await proofFor(keys))).json()) as OAuthTokens;
      expect(issued.token_type).toBe('DPoP');
      const auth = await proxy.verifier().verify(issued.access_token, { resource });
      expect(auth.claims).toMatchObject({ cnf: { jkt } });

      const refresh = { grant_type: 'refresh_token', client_id: clientId, refresh_token: issued.refresh_token! };
      const unproven = await tokenRequest(refresh);
      expect(unproven.status).toBe(400);
      expect(await unproven.json()).toMatchObject({
        error: 'invalid_grant',
        error_description: expect.stringMatching(/bound to a DPoP key/),
      });
      // Whoever stole the refresh token cannot use it, nor burn it for its owner by trying.
      const thief = await jose.generateKeyPair('ES256');
      expect(await (await withProof(refresh, await proofFor(thief))).json()).toMatchObject({ error: 'invalid_grant' });
      const renewed = await withProof(refresh, await proofFor(keys));
      expect(renewed.status).toBe(200);
      expect(((await renewed.json()) as OAuthTokens).token_type).toBe('DPoP');
    });

    it('keeps the binding across a refresh, and refuses bad proofs and a dpop_jkt the proof does not match', async () => {
      const keys = await jose.generateKeyPair('ES256');
      const jkt = await jose.calculateJwkThumbprint(await jose.exportJWK(keys.publicKey));
      const clientId = await registerPublicClient();
      const first = await codeFor(clientId);
      const exchange = (c: { code: string; verifier: string }) => ({
        grant_type: 'authorization_code',
        client_id: clientId,
        code: c.code,
        code_verifier: c.verifier,
        redirect_uri: CLIENT_REDIRECT,
      });
      const elsewhere = await withProof(exchange(first), await proofFor(keys, `${origin}/elsewhere`));
      expect(elsewhere.status).toBe(400);
      expect(await elsewhere.json()).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringMatching(/htu/) });

      // The refused request did not spend the code.
      const issued = (await (await withProof(exchange(first), await proofFor(keys))).json()) as OAuthTokens;
      const refresh = { grant_type: 'refresh_token', client_id: clientId, refresh_token: issued.refresh_token! };
      const refreshed = (await (await withProof(refresh, await proofFor(keys))).json()) as OAuthTokens;
      expect(refreshed.token_type).toBe('DPoP');
      expect((await proxy.verifier().verify(refreshed.access_token, { resource })).claims).toMatchObject({ cnf: { jkt } });

      // RFC 9449 §10: a code asked for with dpop_jkt is redeemed only by a proof of that key.
      const pinned = await authorize(clientId, { dpop_jkt: jkt });
      const back = new URL((await pinned.browser.consent(pinned.page, 'approve')).url);
      const pinnedExchange = exchange({ code: back.searchParams.get('code')!, verifier: pinned.verifier });
      const other = await jose.generateKeyPair('ES256');
      expect(await (await withProof(pinnedExchange, await proofFor(other))).json()).toMatchObject({
        error: 'invalid_grant',
        error_description: expect.stringMatching(/dpop_jkt/),
      });
      expect(await (await tokenRequest(pinnedExchange)).json()).toMatchObject({ error: 'invalid_grant' });
      // Neither attempt spent the code: its owner redeems it with the key it named, once.
      const redeemed = await withProof(pinnedExchange, await proofFor(keys));
      expect(redeemed.status).toBe(200);
      const pinnedAuth = await proxy.verifier().verify(((await redeemed.json()) as OAuthTokens).access_token, { resource });
      expect(pinnedAuth.claims).toMatchObject({ cnf: { jkt } });
      expect(await (await withProof(pinnedExchange, await proofFor(keys))).json()).toMatchObject({ error: 'invalid_grant' });
    });
  });
});
