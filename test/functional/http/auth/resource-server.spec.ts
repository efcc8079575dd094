import { injectable } from 'tsyringe';
import request from 'supertest';
import { AuthConfigurationError, InvalidTokenError, JwtVerifier, StaticTokenVerifier } from '../../../../src/auth';
import { EmptyInput, ForbiddenError, McpApplication, McpContext, McpModule, Tool } from '../../../../src';
import type { HttpOptions } from '../../../../src/http';
import { hmacWithPublicKey, jwksServer, signToken, TestKey, testKey, unsignedToken } from '../../../helpers/jwks-server';
import { parseSse } from '../../../helpers/http-app';
import { httpServer, httpTransport } from '../../../../src/http';
import { stdio } from '../../../../src/stdio';

const ISSUER = 'https://as.example.com';
const RESOURCE = 'https://mcp.example.com/mcp';
const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const ACCEPT = 'application/json, text/event-stream';

@injectable()
class AuthTools {
  @Tool({ description: 'Tells who is calling' })
  whoami(_: EmptyInput, ctx: McpContext) {
    return JSON.stringify(ctx.auth ?? null);
  }

  @Tool({ description: 'Refuses before sending anything' })
  refuse(_: EmptyInput): string {
    throw new ForbiddenError('Deleting needs files:write', ['files:read', 'files:write']);
  }

  @Tool({ description: 'Sends a log message, then refuses (the answer is a stream by then)' })
  async refuseLate(_: EmptyInput, ctx: McpContext): Promise<string> {
    await ctx.log.info('working');
    throw new ForbiddenError('Deleting needs files:write', ['files:write']);
  }
}

@McpModule({ providers: [AuthTools], server: { name: 'auth-test', version: '1.0.0' } })
class AuthModule {}

const quiet = { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } };

/** Every application a test opens, closed after it even when it fails (a listening one would keep jest alive). */
const opened: McpApplication[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((app) => app.close()));
});

async function create(options: Parameters<typeof McpApplication.create>[1] = quiet, perTest = true): Promise<McpApplication> {
  const app = await McpApplication.create(AuthModule, options);
  if (perTest) opened.push(app);
  return app;
}

async function authApp(options: HttpOptions, perTest = true) {
  const app = await create(quiet, perTest);
  const transport = httpTransport(app, { sessions: false, ...options });
  return { app, callback: transport.callback() };
}

function call(callback: Parameters<typeof request>[0], name: string, token?: string | null, header?: string) {
  const headers: Record<string, string> = { Accept: ACCEPT, 'MCP-Protocol-Version': '2025-11-25' };
  if (header !== undefined) headers.Authorization = header;
  else if (token) headers.Authorization = `Bearer ${token}`;
  return request(callback)
    .post('/mcp')
    .set(headers)
    .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
}

describe('HTTP transport as an OAuth resource server (JWT)', () => {
  let keyA: TestKey;
  let keyB: TestKey;
  let jwks: Awaited<ReturnType<typeof jwksServer>>;
  let env: Awaited<ReturnType<typeof authApp>>;

  beforeAll(async () => {
    [keyA, keyB] = await Promise.all([testKey('a'), testKey('b')]);
    jwks = await jwksServer([keyA]);
    env = await authApp(
      {
        auth: {
          authorizationServers: [ISSUER],
          resource: RESOURCE,
          scopesSupported: ['files:read', 'offline_access'],
          resourceName: 'Files',
          verifier: new JwtVerifier({ issuer: ISSUER, jwksUri: jwks.url, jwksCooldownMs: 0 }),
        },
      },
      false,
    );
  });
  afterAll(async () => {
    await env.app.close();
    await jwks.close();
  });

  const good = { iss: ISSUER, aud: RESOURCE, sub: 'alice', client_id: 'app-1', scope: 'files:read files:write' };
  const now = () => Math.floor(Date.now() / 1000);

  it('challenges a request without credentials: resource_metadata and scope, no error attribute', async () => {
    const res = await call(env.callback, 'whoami');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${METADATA_URL}", scope="files:read"`);
    expect(res.body.error.code).toBe(-32000);
  });

  it('serves a valid token, with AuthInfo but never the token itself', async () => {
    const token = await signToken(keyA, good);
    const res = await call(env.callback, 'whoami', token);
    expect(res.status).toBe(200);
    const auth = JSON.parse(res.body.result.content[0].text);
    expect(auth).toMatchObject({
      subject: 'alice',
      clientId: 'app-1',
      scopes: ['files:read', 'files:write'],
      claims: { iss: ISSUER, aud: RESOURCE },
    });
    expect(typeof auth.expiresAt).toBe('number');
    expect(res.body.result.content[0].text).not.toContain(token);
  });

  it('reads scopes from `scp` as well', async () => {
    const res = await call(env.callback, 'whoami', await signToken(keyA, { ...good, scope: undefined, scp: ['a', 'b'] }));
    expect(JSON.parse(res.body.result.content[0].text).scopes).toEqual(['a', 'b']);
  });

  const refusals: [string, () => Promise<string> | string, string][] = [
    [
      'a token for another resource',
      () => signToken(keyA, { ...good, aud: 'https://other.example.com/mcp' }),
      'The token was not issued for this resource',
    ],
    [
      'a token from another issuer',
      () => signToken(keyA, { ...good, iss: 'https://evil.example.com' }),
      'The token was not issued by a trusted authorization server',
    ],
    ['an expired token', () => signToken(keyA, { ...good, iat: now() - 7200, exp: now() - 3600 }), 'The token expired'],
    ['a token not valid yet', () => signToken(keyA, { ...good, nbf: now() + 3600 }), 'The token is not valid yet'],
    ['an unsigned token (alg none)', () => unsignedToken({ ...good, exp: now() + 60 }), "The token's signing algorithm is not accepted"],
    [
      'an HS256 token keyed with the RSA public key',
      () => hmacWithPublicKey(keyA, { ...good, exp: now() + 60 }),
      "The token's signing algorithm is not accepted",
    ],
    ['a token whose header is not JSON', () => `${Buffer.from('{not json').toString('base64url')}.e30.c2ln`, 'The token is malformed'],
    [
      'a token with a forged signature',
      async () => (await signToken(keyA, good)).replace(/\.[^.]+$/, '.AAAA'),
      "The token's signature is invalid",
    ],
  ];

  it.each(refusals)('refuses %s with 401 invalid_token', async (_, make, description) => {
    const res = await call(env.callback, 'whoami', await make());
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", error_description="${description}", resource_metadata="${METADATA_URL}", scope="files:read"`,
    );
  });

  it('refuses an Authorization header that is not a bearer token', async () => {
    const res = await call(env.callback, 'whoami', undefined, 'Basic YWxpY2U6c2VjcmV0');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(
      /^Bearer error="invalid_token", error_description="The Authorization header is not a bearer token"/,
    );
  });

  it('refuses a key it does not know, then accepts it once the JWKS publishes it (rotation)', async () => {
    const token = await signToken(keyB, good);
    const refused = await call(env.callback, 'whoami', token);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain(`error_description="The token's signing key is unknown"`);
    const before = jwks.fetches();
    jwks.keys = [keyA, keyB];
    const accepted = await call(env.callback, 'whoami', token);
    expect(accepted.status).toBe(200);
    expect(jwks.fetches()).toBeGreaterThan(before);
  });

  it('publishes Protected Resource Metadata at the path-suffixed and the root well-known URLs', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await request(env.callback).get(path).set('Origin', 'http://localhost:6274');
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.body).toEqual({
        resource: RESOURCE,
        authorization_servers: [ISSUER],
        scopes_supported: ['files:read'],
        bearer_methods_supported: ['header'],
        resource_name: 'Files',
      });
    }
    const preflight = await request(env.callback)
      .options('/.well-known/oauth-protected-resource/mcp')
      .set('Origin', 'http://localhost:6274');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
  });

  it('keeps the metadata behind the Host check', async () => {
    const res = await request(env.callback).get('/.well-known/oauth-protected-resource/mcp').set('Host', 'evil.example.com');
    expect(res.status).toBe(403);
  });

  it('answers a ForbiddenError thrown before anything was sent with 403 insufficient_scope', async () => {
    const res = await call(env.callback, 'refuse', await signToken(keyA, good));
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="${METADATA_URL}", error_description="Deleting needs files:write"`,
    );
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32003, message: 'Deleting needs files:write', data: { requiredScopes: ['files:read', 'files:write'] } },
    });
  });

  it('answers a ForbiddenError thrown after the answer became a stream with the JSON-RPC error', async () => {
    const res = await call(env.callback, 'refuseLate', await signToken(keyA, good))
      .buffer(true)
      .parse((r, cb) => {
        let data = '';
        r.on('data', (c: Buffer) => (data += c.toString()));
        r.on('end', () => cb(null, data));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const events = parseSse(res.body as string).map((e) => JSON.parse(e.data));
    expect(events[events.length - 1]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32003, message: 'Deleting needs files:write', data: { requiredScopes: ['files:write'] } },
    });
  });
});

describe('resource server options', () => {
  const verifier = new StaticTokenVerifier({ 'dev-token': { subject: 'dev', scopes: ['x'] } });

  it('serves anonymous callers with no auth when allowAnonymous, but still refuses a bad token', async () => {
    const env = await authApp({ auth: { authorizationServers: [ISSUER], resource: RESOURCE, verifier, allowAnonymous: true } });
    const anonymous = await call(env.callback, 'whoami');
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.result.content[0].text).toBe('null');
    const known = await call(env.callback, 'whoami', 'dev-token');
    expect(JSON.parse(known.body.result.content[0].text)).toEqual({ principal: 'sub:dev@', subject: 'dev', scopes: ['x'] });
    const bad = await call(env.callback, 'whoami', 'nope');
    expect(bad.status).toBe(401);
    expect(bad.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", error_description="The token is unknown", resource_metadata="${METADATA_URL}"`,
    );
    await env.app.close();
  });

  it('takes the listen URL as the resource by default, with the metadata URL on the same origin', async () => {
    const app = await create();
    const http = await app.listen(httpServer({ port: 0, auth: { authorizationServers: [ISSUER], verifier } }));
    const origin = new URL(http.url).origin;
    const res = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`);
    expect(await res.json()).toMatchObject({ resource: `${origin}/mcp` });
    const unauthorized = await fetch(http.url, {
      method: 'POST',
      headers: { Accept: ACCEPT, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(unauthorized.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    await app.close();
  });

  it('refuses `auth` together with `authenticate`, and a wildcard bind without `resource`', async () => {
    const app = await create();
    expect(() => httpTransport(app, { auth: { authorizationServers: [ISSUER], verifier }, authenticate: () => undefined })).toThrow(
      AuthConfigurationError,
    );
    expect(() => httpTransport(app, { host: '0.0.0.0', auth: { authorizationServers: [ISSUER], verifier } })).toThrow(
      /auth.resource is required/,
    );
    await app.close();
  });

  it('answers 500 (logged) when mounted without listen() and without `resource`', async () => {
    const errors: unknown[] = [];
    const app = await create({ logger: { error: (m: string) => errors.push(m), warn: () => undefined, info: () => undefined } });
    const transport = httpTransport(app, { sessions: false, auth: { authorizationServers: [ISSUER], verifier } });
    const res = await call(transport.callback(), 'whoami', 'dev-token');
    expect(res.status).toBe(500);
    expect(errors).toContain('Authorization is misconfigured');
    await app.close();
  });

  it('refuses to serve stdio when its token is missing or invalid, before anything is served', async () => {
    const app = await create();
    const stdioWith = (token?: string) => stdio({ auth: { verifier, resource: RESOURCE, token } });
    const saved = process.env.MCP_ACCESS_TOKEN;
    delete process.env.MCP_ACCESS_TOKEN;
    try {
      await expect(app.listen(stdioWith())).rejects.toThrow(AuthConfigurationError);
      await expect(app.listen(stdioWith('wrong'))).rejects.toThrow(new InvalidTokenError('The token is unknown'));
    } finally {
      if (saved !== undefined) process.env.MCP_ACCESS_TOKEN = saved;
    }
  });

  it('gives an in-process or stdio connection the AuthInfo it was verified with', async () => {
    const app = await create();
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const client = new Client({ name: 't', version: '1' });
    await client.connect(app.connectInMemory({ auth: await verifier.verify('dev-token') }));
    const result = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: { text: string }[] };
    expect(JSON.parse(result.content[0].text)).toEqual({ principal: 'sub:dev@', subject: 'dev', scopes: ['x'] });
    await client.close();
    await app.close();
  });
});
