import { injectable } from 'tsyringe';
import request from 'supertest';
import { AuthInfo, EmptyInput, McpApplication, McpContext, McpModule, RequireScopes, Tool } from '../../../../src';
import type { HttpOptions } from '../../../../src/http';
import { AuthorizationServerError, StaticTokenVerifier, TokenVerifier } from '../../../../src/auth';
import { httpTransport } from '../../../../src/http';

const ISSUER = 'https://as.example.com';
const RESOURCE = 'https://mcp.example.com/mcp';
const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const ACCEPT = 'application/json, text/event-stream';

@injectable()
class Handlers {
  @Tool({ description: 'Tells who is calling' })
  whoami(_: EmptyInput, ctx: McpContext) {
    return JSON.stringify(ctx.auth ?? null);
  }

  @Tool({ description: 'Needs files:write' })
  @RequireScopes('files:write')
  write(_: EmptyInput) {
    return 'written';
  }
}

@McpModule({ providers: [Handlers], server: { name: 'refusals', version: '1.0.0' } })
class RefusalsModule {}

const opened: McpApplication[] = [];
afterEach(async () => {
  jest.restoreAllMocks();
  await Promise.all(opened.splice(0).map((app) => app.close()));
});

async function serve(options: HttpOptions, errors: string[] = []) {
  const app = await McpApplication.create(RefusalsModule, {
    logger: { error: (m: string) => errors.push(m), warn: () => undefined, info: () => undefined },
  });
  opened.push(app);
  return httpTransport(app, { sessions: false, ...options }).callback();
}

type Callback = Awaited<ReturnType<typeof serve>>;

function call(callback: Callback, name: string, token?: string, modern = false) {
  const version = modern ? '2026-07-28' : '2025-11-25';
  const headers: Record<string, string> = { Accept: ACCEPT, 'MCP-Protocol-Version': version };
  if (modern) Object.assign(headers, { 'Mcp-Method': 'tools/call', 'Mcp-Name': name });
  if (token) headers.Authorization = `Bearer ${token}`;
  const _meta = modern
    ? { 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientCapabilities': {} }
    : undefined;
  return request(callback)
    .post('/mcp')
    .set(headers)
    .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, _meta } });
}

/** A verifier that counts what it is asked, over fixed tokens. */
function countingVerifier(tokens: Record<string, AuthInfo>, cacheTtlMs?: number): TokenVerifier & { asked: string[] } {
  const inner = new StaticTokenVerifier(tokens);
  const asked: string[] = [];
  return {
    asked,
    cacheTtlMs,
    verify: (token: string) => {
      asked.push(token);
      return inner.verify(token);
    },
  };
}

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

describe('refusals of an OAuth resource server', () => {
  const tokens = () => ({ reader: { subject: 'r', scopes: ['files:read'], expiresAt: inAnHour() } });
  const oauth = (verifier: TokenVerifier): HttpOptions => ({
    auth: {
      authorizationServers: [ISSUER],
      resource: RESOURCE,
      verifier,
      allowAnonymous: true,
      scopesSupported: ['files:read', 'files:write'],
      challengeScopes: ['files:read'],
    },
  });

  it.each([false, true])(
    'answers an anonymous caller of a scoped tool 401 with the resource_metadata challenge (modern: %s)',
    async (modern) => {
      const callback = await serve(oauth(countingVerifier(tokens())));
      const res = await call(callback, 'write', undefined, modern);
      expect(res.status).toBe(401);
      // No error attribute (no credentials came); the scopes to ask for include the tool's own.
      expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${METADATA_URL}", scope="files:read files:write"`);
      expect(res.body.error.code).toBe(-32003);
      // An unscoped tool still serves the anonymous caller.
      expect((await call(callback, 'whoami', undefined, modern)).status).toBe(200);
    },
  );

  it('answers an authenticated caller lacking the scope 403 insufficient_scope, asking for what it has plus what it needs', async () => {
    const callback = await serve(oauth(countingVerifier(tokens())));
    const res = await call(callback, 'write', 'reader');
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toMatch(
      /^Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="[^"]+"/,
    );
  });

  it('reuses a verified token until the verifier allows, never past its exp', async () => {
    const now = Date.now();
    const verifier = countingVerifier(
      { a: { subject: 'a', expiresAt: Math.floor(now / 1000) + 60 }, b: { subject: 'b', expiresAt: inAnHour() } },
      600_000,
    );
    const callback = await serve(oauth(verifier));
    expect((await call(callback, 'whoami', 'a')).status).toBe(200);
    expect((await call(callback, 'whoami', 'a')).status).toBe(200);
    expect((await call(callback, 'whoami', 'b')).status).toBe(200);
    expect(verifier.asked).toEqual(['a', 'b']);
    // Past a's exp (within the 10 minutes the verifier allows): asked again, and refused.
    jest.spyOn(Date, 'now').mockReturnValue(now + 61_000);
    const expired = await call(callback, 'whoami', 'a');
    expect(expired.status).toBe(401);
    expect(verifier.asked).toEqual(['a', 'b', 'a']);
  });

  it('asks a verifier that offers no cacheTtlMs on every request, and caches nothing when tokenCacheMaxBytes is 0', async () => {
    const plain = countingVerifier(tokens());
    const callback = await serve(oauth(plain));
    await call(callback, 'whoami', 'reader');
    await call(callback, 'whoami', 'reader');
    expect(plain.asked).toHaveLength(2);
    const cacheable = countingVerifier(tokens(), 60_000);
    const off = await serve({ auth: { ...oauth(cacheable).auth!, tokenCacheMaxBytes: 0 } });
    await call(off, 'whoami', 'reader');
    await call(off, 'whoami', 'reader');
    expect(cacheable.asked).toHaveLength(2);
  });

  it("reuses a verified token for the verifier's cacheTtlMs, then asks again; never keeps a token without exp", async () => {
    const start = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
    const verifier = countingVerifier(
      { a: { subject: 'a', expiresAt: Math.floor(start / 1000) + 3600 }, forever: { subject: 'f' } },
      1_000,
    );
    const callback = await serve(oauth(verifier));
    await call(callback, 'whoami', 'a');
    clock.mockReturnValue(start + 999);
    await call(callback, 'whoami', 'a');
    expect(verifier.asked).toEqual(['a']);
    clock.mockReturnValue(start + 1_000);
    expect((await call(callback, 'whoami', 'a')).status).toBe(200);
    expect(verifier.asked).toEqual(['a', 'a']);
    await call(callback, 'whoami', 'forever');
    await call(callback, 'whoami', 'forever');
    expect(verifier.asked).toEqual(['a', 'a', 'forever', 'forever']);
  });

  it('keeps verified tokens within tokenCacheMaxBytes, the least recently used going first', async () => {
    // An entry counts its key, principal and claims two bytes a character, plus 400: about 8.5 KB here,
    // so three fit in 30,000 bytes and four do not.
    const claims = { blob: 'x'.repeat(4_000) };
    const verifier = countingVerifier(
      {
        ...Object.fromEntries(['t0', 't1', 't2', 't3'].map((t) => [t, { subject: t, claims, expiresAt: inAnHour() }])),
        huge: { subject: 'huge', claims: { blob: 'y'.repeat(20_000) }, expiresAt: inAnHour() },
      },
      600_000,
    );
    const callback = await serve({ auth: { ...oauth(verifier).auth!, tokenCacheMaxBytes: 30_000 } });
    /** The tokens the verifier was asked about while these were called, in turn. */
    const asked = async (...tokens: string[]) => {
      const before = verifier.asked.length;
      for (const token of tokens) expect((await call(callback, 'whoami', token)).status).toBe(200);
      return verifier.asked.slice(before);
    };
    expect(await asked('t0', 't1', 't2', 't0', 't1', 't2')).toEqual(['t0', 't1', 't2']);
    // t0, used again, is kept when t3 comes: t1, the least recently used, goes.
    expect(await asked('t0', 't3')).toEqual(['t3']);
    expect(await asked('t0', 't2', 't3', 't1')).toEqual(['t1']);
    // t1 took t0's place; a token larger than the whole cache is not kept, and evicts nothing.
    expect(await asked('huge', 'huge', 't2', 't3', 't1', 't0')).toEqual(['huge', 'huge', 't0']);
  });

  it('answers 503 while the authorization server cannot be asked, logging the outage once, and its end', async () => {
    let down = true;
    const verifier: TokenVerifier = {
      verify: async (token) => {
        if (down) throw new AuthorizationServerError('introspection endpoint unreachable');
        if (token === 'bug') throw new TypeError('a bug in the verifier');
        return { subject: 'a' };
      },
    };
    const errors: string[] = [];
    const callback = await serve(oauth(verifier), errors);
    for (let i = 0; i < 3; i++) {
      const res = await call(callback, 'whoami', 'a');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['www-authenticate']).toBeUndefined();
    }
    expect(errors).toEqual(['The token verifier failed (logged once until it answers again)']);
    down = false;
    expect((await call(callback, 'whoami', 'a')).status).toBe(200);
    expect(errors[1]).toBe('The token verifier answers again, after failing 3 request(s)');
    // A fault that is not the authorization server's is a 500.
    expect((await call(callback, 'whoami', 'bug')).status).toBe(500);
  });

  it('binds a caller whose credentials name nobody to its token: two such tokens are two principals', async () => {
    const verifier = new StaticTokenVerifier({ one: { scopes: [] }, two: { scopes: [] } });
    const callback = await serve(oauth(verifier));
    const principal = async (token: string) =>
      JSON.parse((await call(callback, 'whoami', token)).body.result.content[0].text).principal as string;
    const [one, two] = [await principal('one'), await principal('two')];
    expect(one).toMatch(/^token:[\w-]{43}$/);
    expect(two).toMatch(/^token:[\w-]{43}$/);
    expect(one).not.toBe(two);
  });
});

describe('refusals of a server without OAuth (authenticate hook)', () => {
  const authenticate = ({ headers }: { headers: Record<string, string | string[] | undefined> }): AuthInfo | undefined => {
    const value = headers.authorization;
    if (typeof value !== 'string') return undefined;
    if (value === 'Bearer nobody') return { scopes: ['files:write'] };
    return { subject: 'hooked', scopes: [] };
  };

  it('answers 403 with no Bearer challenge, to an anonymous caller and to one lacking the scope', async () => {
    const callback = await serve({ authenticate });
    for (const token of [undefined, 'someone']) {
      const res = await call(callback, 'write', token);
      expect(res.status).toBe(403);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.body.error).toMatchObject({ code: -32003, data: { requiredScopes: ['files:write'] } });
    }
  });

  it('refuses (500, logged) a hook that names no caller: two such callers would share everything', async () => {
    const errors: string[] = [];
    const callback = await serve({ authenticate }, errors);
    const res = await call(callback, 'whoami', 'nobody');
    expect(res.status).toBe(500);
    expect(errors).toEqual(['The authenticate hook failed']);
    expect((await call(callback, 'whoami', 'someone')).status).toBe(200);
  });

  it('keeps refusing an invalid token with 401 whatever the cache holds', async () => {
    const verifier = countingVerifier({ good: { subject: 'g', expiresAt: inAnHour() } }, 60_000);
    const callback = await serve({ auth: { authorizationServers: [ISSUER], resource: RESOURCE, verifier } });
    await call(callback, 'whoami', 'good');
    const res = await call(callback, 'whoami', 'goodx');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(verifier.asked).toEqual(['good', 'goodx']);
  });
});
