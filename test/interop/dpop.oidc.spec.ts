import { createHash, randomUUID } from 'node:crypto';
import * as jose from 'jose';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpContext, McpModule, Tool } from '../../src';
import { IntrospectionVerifier, JwtVerifier, type DpopOptions } from '../../src/auth';
import { fetchHandler } from '../../src/fetch';
import { httpServer } from '../../src/http';
import { redisScaleOut } from '../../src/redis';
import { runDpopClient } from '../helpers/dpop-client';
import { serveFetch } from '../helpers/fetch-node-server';
import { freePort } from '../helpers/free-port';
import { clientCredentialsToken, providerMetadata, startOidcProvider, type ProviderMetadata } from '../helpers/oidc-provider';
import { PrivateRedis } from '../helpers/redis-server';

@injectable()
class WhoTools {
  @Tool({ description: 'Tells who is calling' })
  whoami(_: EmptyInput, ctx: McpContext) {
    return `${ctx.auth?.subject} via ${ctx.auth?.clientId}`;
  }
}

@McpModule({ providers: [WhoTools], server: { name: 'dpop', version: '1.0.0' } })
class DpopModule {}

const quiet = { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } };
type Keys = jose.GenerateKeyPairResult<jose.KeyLike>;
type Served = { url: string; close: () => Promise<void> };

/**
 * DPoP (RFC 9449) on the resource server: oidc-provider issues tokens bound to the client's key (its DPoP
 * feature), the official SDK 2.x client with its own DPoP gets them and calls tools in both eras, on Koa and on the fetch handler; a stolen token and every kind
 * of bad proof are refused with RFC 9449's challenges.
 */
describe('DPoP-bound tokens from oidc-provider', () => {
  let provider: Awaited<ReturnType<typeof startOidcProvider>>;
  let metadata: ProviderMetadata;
  const open: Served[] = [];

  beforeAll(async () => {
    provider = await startOidcProvider();
    metadata = await providerMetadata(provider.issuer);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  afterAll(() => provider.stop());

  function auth(dpop: DpopOptions | undefined, resource?: string) {
    return {
      authorizationServers: [provider.issuer],
      scopesSupported: ['mcp:tools'],
      verifier: new JwtVerifier({ issuer: provider.issuer, jwksUri: metadata.jwks_uri }),
      ...(resource ? { resource } : {}),
      ...(dpop ? { dpop } : {}),
    };
  }

  async function serveKoa(dpop: DpopOptions | undefined, shared?: { redisUrl: string; resource: string }): Promise<Served> {
    const scaleOut = shared ? { scaleOut: redisScaleOut({ redis: shared.redisUrl }) } : {};
    const app = await McpApplication.create(DpopModule, { ...quiet, ...scaleOut });
    const http = await app.listen(httpServer({ port: 0, auth: auth(dpop, shared?.resource) }));
    const served = { url: http.url, close: () => app.close() };
    open.push(served);
    return served;
  }

  async function serveFetchHandler(dpop: DpopOptions | undefined): Promise<Served> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const app = await McpApplication.create(DpopModule, quiet);
    const front = await serveFetch(fetchHandler(app, { auth: auth(dpop, url) }), port);
    const served = {
      url,
      close: async () => {
        await front.close();
        await app.close();
      },
    };
    open.push(served);
    return served;
  }

  describe.each([
    ['Koa', serveKoa],
    ['the fetch handler', serveFetchHandler],
  ])('on %s', (_door, serve) => {
    it.each(['legacy', '2026-07-28'])(
      'serves the official client with DPoP-bound tokens and nonces (%s)',
      async (mode) => {
        const server = await serve({ mode: 'required', nonce: true });
        const seen = await runDpopClient({ ISSUER: provider.issuer, MCP_URL: server.url, CLIENT_ID: 'user-alice', MODE: mode });
        expect(seen.tokenType?.toLowerCase()).toBe('dpop');
        expect(seen.answers).toEqual(['alice via user-alice', 'alice via user-alice']);
      },
      30_000,
    );

    it('refuses the same token stolen and replayed without the key', async () => {
      const server = await serve({ mode: 'allowed' });
      const keys = await jose.generateKeyPair('ES256');
      const token = await boundToken(keys, server.url);
      expect((await initialize(server.url, token, await proof(keys, 'POST', server.url, { token }))).status).toBe(200);
      const stolen = await initialize(server.url, token, undefined, 'Bearer');
      expect(stolen.status).toBe(401);
      expect(stolen.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token", error_description="The token is bound to a key/);
    }, 20_000);
  });

  async function boundToken(keys: Keys, resource: string): Promise<string> {
    const res = await fetch(metadata.token_endpoint, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from('user-alice:user-alice-secret').toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
        DPoP: await proof(keys, 'POST', metadata.token_endpoint),
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:tools', resource }).toString(),
    });
    const body = (await res.json()) as { access_token: string; token_type: string };
    expect(body.token_type).toBe('DPoP');
    return body.access_token;
  }

  interface ProofShape {
    token?: string;
    nonce?: string;
    iat?: number;
    jti?: string;
    jwk?: jose.JWK;
  }

  async function proof(keys: Keys, htm: string, htu: string, shape: ProofShape = {}): Promise<string> {
    const claims: Record<string, unknown> = { htm, htu, jti: shape.jti ?? randomUUID() };
    if (shape.token) claims.ath = createHash('sha256').update(shape.token).digest('base64url');
    if (shape.nonce) claims.nonce = shape.nonce;
    const jwk = shape.jwk ?? (await jose.exportJWK(keys.publicKey));
    return new jose.SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk }).setIssuedAt(shape.iat).sign(keys.privateKey);
  }

  function initialize(url: string, token: string, dpop: string | undefined, scheme = 'DPoP'): Promise<Response> {
    return fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `${scheme} ${token}`,
        ...(dpop ? { dpop } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
  }

  /** 401 with a DPoP challenge of `error`, whose description matches `reason`. */
  async function expectRefused(res: Response, error: string, reason: RegExp, path = 'mcp') {
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(new RegExp(`^DPoP error="${error}"`));
    expect(challenge).toMatch(/algs="[^"]*ES256/);
    expect(challenge).toMatch(new RegExp(`resource_metadata="http://127\\.0\\.0\\.1:\\d+/\\.well-known/oauth-protected-resource/${path}"`));
    expect(/error_description="([^"]*)"/.exec(challenge)?.[1]).toMatch(reason);
  }

  describe('every bad proof', () => {
    let server: Served;
    let keys: Keys;
    let token: string;
    beforeEach(async () => {
      server = await serveKoa({ mode: 'allowed' });
      keys = await jose.generateKeyPair('ES256');
      token = await boundToken(keys, server.url);
    });

    it('no proof, or two', async () => {
      await expectRefused(await initialize(server.url, token, undefined), 'invalid_dpop_proof', /one DPoP proof/);
      const one = await proof(keys, 'POST', server.url, { token });
      await expectRefused(await initialize(server.url, token, `${one}, ${one}`), 'invalid_dpop_proof', /one DPoP proof/);
    });

    it('a proof for another method, URL or token', async () => {
      await expectRefused(
        await initialize(server.url, token, await proof(keys, 'GET', server.url, { token })),
        'invalid_dpop_proof',
        /htm/,
      );
      const elsewhere = server.url.replace('/mcp', '/other');
      await expectRefused(
        await initialize(server.url, token, await proof(keys, 'POST', elsewhere, { token })),
        'invalid_dpop_proof',
        /htu/,
      );
      const otherToken = await boundToken(keys, server.url);
      await expectRefused(
        await initialize(server.url, token, await proof(keys, 'POST', server.url, { token: otherToken })),
        'invalid_dpop_proof',
        /ath/,
      );
      // htu is compared without its query, as RFC 9449 says.
      expect((await initialize(server.url, token, await proof(keys, 'POST', `${server.url}?x=1`, { token }))).status).toBe(200);
    });

    it('a replayed jti, a stale or future iat', async () => {
      const once = await proof(keys, 'POST', server.url, { token });
      expect((await initialize(server.url, token, once)).status).toBe(200);
      await expectRefused(await initialize(server.url, token, once), 'invalid_dpop_proof', /used before/);
      const now = Math.floor(Date.now() / 1000);
      await expectRefused(
        await initialize(server.url, token, await proof(keys, 'POST', server.url, { token, iat: now - 600 })),
        'invalid_dpop_proof',
        /too old/,
      );
      await expectRefused(
        await initialize(server.url, token, await proof(keys, 'POST', server.url, { token, iat: now + 600 })),
        'invalid_dpop_proof',
        /not valid yet/,
      );
    });

    it('a proof signed with another key than the token is bound to', async () => {
      const thief = await jose.generateKeyPair('ES256');
      await expectRefused(
        await initialize(server.url, token, await proof(thief, 'POST', server.url, { token })),
        'invalid_token',
        /another key/,
      );
    });

    it('alg none, HS256, a private jwk, a wrong typ', async () => {
      const jwk = await jose.exportJWK(keys.publicKey);
      const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      const claims = {
        htm: 'POST',
        htu: server.url,
        iat: Math.floor(Date.now() / 1000),
        jti: randomUUID(),
        ath: createHash('sha256').update(token).digest('base64url'),
      };
      const none = `${b64({ alg: 'none', typ: 'dpop+jwt', jwk })}.${b64(claims)}.`;
      await expectRefused(await initialize(server.url, token, none), 'invalid_dpop_proof', /algorithm|malformed/);
      const hs256 = await new jose.SignJWT({ ...claims, jti: randomUUID() })
        .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk })
        .sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'));
      await expectRefused(await initialize(server.url, token, hs256), 'invalid_dpop_proof', /algorithm/);
      const privateJwk = await jose.exportJWK(keys.privateKey);
      await expectRefused(
        await initialize(server.url, token, await proof(keys, 'POST', server.url, { token, jwk: privateJwk })),
        'invalid_dpop_proof',
        /public key/,
      );
      const jwtTyp = await new jose.SignJWT({ ...claims, jti: randomUUID() })
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT', jwk })
        .sign(keys.privateKey);
      await expectRefused(await initialize(server.url, token, jwtTyp), 'invalid_dpop_proof', /typ/);
    });
  });

  it('asks for a nonce, and takes the proof that carries it', async () => {
    const server = await serveKoa({ mode: 'required', nonce: { lifetimeSec: 60 } });
    const keys = await jose.generateKeyPair('ES256');
    const token = await boundToken(keys, server.url);
    const first = await initialize(server.url, token, await proof(keys, 'POST', server.url, { token }));
    await expectRefused(first, 'use_dpop_nonce', /nonce/);
    const nonce = first.headers.get('dpop-nonce')!;
    expect(nonce).toEqual(expect.any(String));
    // Forgeries as long as a real nonce: its MAC with one character changed, and its MAC on another issue time.
    const [issued, mac] = nonce.split('.');
    const flipped = `${issued}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    const moved = `${(parseInt(issued, 36) - 1).toString(36)}.${mac}`;
    for (const forged of [flipped, moved]) {
      expect(forged).toHaveLength(nonce.length);
      await expectRefused(
        await initialize(server.url, token, await proof(keys, 'POST', server.url, { token, nonce: forged })),
        'use_dpop_nonce',
        /nonce/,
      );
    }
    expect((await initialize(server.url, token, await proof(keys, 'POST', server.url, { token, nonce }))).status).toBe(200);
  });

  it('required: a plain bearer token is refused, and the metadata says DPoP is required', async () => {
    const server = await serveKoa({ mode: 'required' });
    const bearer = await clientCredentialsToken(metadata, 'user-alice', server.url);
    await expectRefused(await initialize(server.url, bearer, undefined, 'Bearer'), 'invalid_token', /DPoP-bound tokens only/);
    const none = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^DPoP resource_metadata="[^"]+", scope="mcp:tools", algs="ES256 /);
    const prm = (await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', server.url))).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({
      dpop_bound_access_tokens_required: true,
      dpop_signing_alg_values_supported: expect.arrayContaining(['ES256']),
    });
  });

  it('allowed: plain bearer tokens still work, and a 401 offers both schemes', async () => {
    const server = await serveKoa({ mode: 'allowed' });
    const bearer = await clientCredentialsToken(metadata, 'user-alice', server.url);
    expect((await initialize(server.url, bearer, undefined, 'Bearer')).status).toBe(200);
    const none = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="[^"]+", scope="mcp:tools", DPoP resource_metadata=/);
    // An unbound token with the DPoP scheme is not a DPoP-bound token.
    const keys = await jose.generateKeyPair('ES256');
    await expectRefused(
      await initialize(server.url, bearer, await proof(keys, 'POST', server.url, { token: bearer })),
      'invalid_token',
      /not bound/,
    );
  });

  it('bearer only: a bound token is refused all the same', async () => {
    const server = await serveKoa(undefined);
    const keys = await jose.generateKeyPair('ES256');
    const token = await boundToken(keys, server.url);
    const res = await initialize(server.url, token, undefined, 'Bearer');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="The token is bound to a key/);
  });

  it('honours the cnf of an introspected opaque token', async () => {
    // The fixture issues opaque tokens for resources ending in /opaque: only introspection knows their binding.
    const resource = 'http://127.0.0.1:1/opaque';
    const app = await McpApplication.create(DpopModule, quiet);
    const verifier = new IntrospectionVerifier({
      endpoint: `${provider.issuer}/token/introspection`,
      clientId: 'introspector',
      clientSecret: 'introspector-secret',
      issuer: provider.issuer,
    });
    const http = await app.listen(httpServer({ port: 0, auth: { authorizationServers: [provider.issuer], resource, verifier, dpop: {} } }));
    open.push({ url: http.url, close: () => app.close() });
    const keys = await jose.generateKeyPair('ES256');
    const token = await boundToken(keys, resource);
    expect(token.split('.')).toHaveLength(1); // opaque
    expect((await initialize(http.url, token, await proof(keys, 'POST', resource, { token }))).status).toBe(200);
    const stolen = await initialize(http.url, token, undefined, 'Bearer');
    expect(stolen.status).toBe(401);
    expect(stolen.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="The token is bound to a key/);
    const thief = await jose.generateKeyPair('ES256');
    await expectRefused(
      await initialize(http.url, token, await proof(thief, 'POST', resource, { token })),
      'invalid_token',
      /another key/,
      'opaque',
    );
  });

  it('refuses a proof replayed on another instance sharing Redis', async () => {
    const redis = await PrivateRedis.start();
    try {
      // Two instances of one deployment: one public URL (the proofs' htu, the tokens' audience), one Redis.
      const resource = 'http://mcp.example.test/mcp';
      const a = await serveKoa({ mode: 'required' }, { redisUrl: redis.url, resource });
      const b = await serveKoa({ mode: 'required' }, { redisUrl: redis.url, resource });
      const keys = await jose.generateKeyPair('ES256');
      const token = await boundToken(keys, resource);
      const once = await proof(keys, 'POST', resource, { token });
      expect((await initialize(a.url, token, once)).status).toBe(200);
      const replayed = await initialize(b.url, token, once);
      expect(replayed.status).toBe(401);
      expect(replayed.headers.get('www-authenticate')).toMatch(/error="invalid_dpop_proof", error_description="The proof was used before/);
      expect((await initialize(b.url, token, await proof(keys, 'POST', resource, { token }))).status).toBe(200);
    } finally {
      await Promise.all(open.splice(0).map((s) => s.close()));
      await redis.stop();
    }
  }, 30_000);
});
