import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpModule, RequireScopes, Resource, Tool } from '../../../src';
import { StaticTokenVerifier } from '../../../src/auth';
import { perRequestBody, perRequestHeaders, postRaw } from '../../helpers/per-request-http';
import { httpServer } from '../../../src/http';

@injectable()
class GuardedTools {
  @Tool({ description: 'Open to every authenticated caller' })
  open(_: EmptyInput) {
    return 'open';
  }

  @Tool({ description: 'Needs the admin scope' })
  @RequireScopes('admin')
  admin(_: EmptyInput) {
    return 'admin';
  }

  @Resource({ uri: 'test://public-doc', mimeType: 'text/plain', cache: { ttlMs: 60_000, scope: 'public' } })
  doc() {
    return 'the same for everyone';
  }
}

@McpModule({ providers: [GuardedTools], server: { name: 'per-request-auth', version: '1.0.0' } })
class GuardedModule {}

const verifier = new StaticTokenVerifier({
  'user-token': { subject: 'user', scopes: ['read'] },
  'admin-token': { subject: 'root', scopes: ['read', 'admin'] },
});

/** Authorization applies to 2026-07-28 requests as it does to sessions: before dispatch, per caller. */
describe('authorization of 2026-07-28 requests', () => {
  let app: McpApplication;
  let url: string;
  beforeAll(async () => {
    app = await McpApplication.create(GuardedModule, { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
    const http = await app.listen(
      httpServer({ port: 0, host: '127.0.0.1', auth: { authorizationServers: ['https://as.example.com'], verifier } }),
    );
    url = http.url;
  });
  afterAll(() => app.close());

  const post = (method: string, params: Record<string, unknown>, token?: string) => {
    const body = perRequestBody(method, params);
    return fetch(url, {
      method: 'POST',
      headers: { ...perRequestHeaders(body), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  };

  it('challenges a request without a token with 401 and the resource metadata, in a JSON-RPC body', async () => {
    const res = await post('tools/call', { name: 'open', arguments: {} });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Bearer .*resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    expect(await res.json()).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Unauthorized: a bearer token is required' },
    });
  });

  it('answers a call beyond the token scopes with 403 insufficient_scope, asking for the scopes it needs', async () => {
    const res = await post('tools/call', { name: 'admin', arguments: {} }, 'user-token');
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
    expect(res.headers.get('www-authenticate')).toMatch(/scope="read admin"/);
    const allowed = (await (await post('tools/call', { name: 'admin', arguments: {} }, 'admin-token')).json()) as {
      result: { content: { text: string }[] };
    };
    expect(allowed.result.content[0].text).toBe('admin');
  });

  it('lists per caller, marked private; a resource that says public stays public', async () => {
    const list = async (token: string) =>
      ((await (await post('tools/list', {}, token)).json()) as { result: { tools: { name: string }[]; cacheScope: string } }).result;
    const user = await list('user-token');
    expect(user.tools.map((t) => t.name)).toEqual(['open']);
    expect(user.cacheScope).toBe('private');
    expect((await list('admin-token')).tools.map((t) => t.name)).toEqual(['open', 'admin']);
    const read = (await (await post('resources/read', { uri: 'test://public-doc' }, 'user-token')).json()) as {
      result: { ttlMs: number; cacheScope: string };
    };
    expect(read.result).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
  });

  it('checks the token before the headers: a bad token is 401 whatever the request', async () => {
    const body = perRequestBody('tools/call', { name: 'open', arguments: {} });
    const reply = await postRaw(url, body, { ...perRequestHeaders(body, { 'mcp-name': 'other' }), authorization: 'Bearer nope' });
    expect(reply.status).toBe(401);
  });
});
