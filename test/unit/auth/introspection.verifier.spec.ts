import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpModule, Tool } from '../../../src';
import { AuthorizationServerError, IntrospectionVerifier, InvalidTokenError } from '../../../src/auth';
import { httpTransport, type RequestListener } from '../../../src/http';

const RESOURCE = 'https://mcp.example.com/mcp';
const ISSUER = 'https://as.example.com';

type Answer = { status?: number; body: unknown };

@injectable()
class WhoTools {
  @Tool({ description: 'Answers an authenticated caller' })
  who(_: EmptyInput) {
    return 'you';
  }
}

@McpModule({ providers: [WhoTools], server: { name: 'introspected', version: '1.0.0' } })
class WhoModule {}

/** A loopback introspection endpoint answering from a table (status and body), recording what it was asked. */
async function introspectionEndpoint(answers: Record<string, Answer>) {
  const asked: { token: string; authorization?: string }[] = [];
  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const token = new URLSearchParams(body).get('token')!;
    asked.push({ token, authorization: req.headers.authorization });
    const answer = answers[token] ?? { body: { active: false } };
    res.statusCode = answer.status ?? 200;
    res.setHeader('Content-Type', 'application/json');
    res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  };
  // A fault of the endpoint itself (the request stream failing) drops the connection, so the call fails, and is logged.
  const server: Server = createServer((req, res) => {
    respond(req, res).catch((error: unknown) => {
      console.error('introspection endpoint:', error);
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/introspect`,
    asked,
    close: () => new Promise((r) => server.close(r)),
  };
}

describe('IntrospectionVerifier', () => {
  const now = Math.floor(Date.now() / 1000);
  const answers: Record<string, Answer> = {
    hour: { body: { active: true, sub: 'bob', aud: RESOURCE, exp: now + 3600 } },
    good: { body: { active: true, sub: 'alice', client_id: 'app', scope: 'a b', aud: RESOURCE, iss: ISSUER, exp: now + 30 } },
    machine: { body: { active: true, client_id: 'machine-1', scope: 'a', aud: RESOURCE, exp: now + 30 } },
    nobody: { body: { active: true, aud: RESOURCE, exp: now + 30 } },
    other: { body: { active: true, sub: 'alice', aud: 'https://elsewhere.example.com', exp: now + 30 } },
    unsupported: { status: 400, body: { error: 'unsupported_token_type', error_description: 'not a token we issue' } },
    'bad-request': { status: 400, body: { error: 'invalid_request' } },
    'own-credentials': { status: 401, body: { error: 'invalid_client' } },
    'own-credentials-400': { status: 400, body: { error: 'invalid_client' } },
    'rate-limited': { status: 429, body: { error: 'slow_down' } },
    'server-error': { status: 503, body: { error: 'temporarily_unavailable' } },
    'not-json': { body: '<html>maintenance</html>' },
    'no-active': { body: { sub: 'alice' } },
  };
  let endpoint: Awaited<ReturnType<typeof introspectionEndpoint>>;
  beforeAll(async () => (endpoint = await introspectionEndpoint(answers)));
  afterAll(() => endpoint.close());

  const verifier = (options: Partial<ConstructorParameters<typeof IntrospectionVerifier>[0]> = {}) =>
    new IntrospectionVerifier({ endpoint: endpoint.url, clientId: 'rs:1', clientSecret: 's&cret', issuer: ISSUER, ...options });

  it('authenticates with client credentials and maps the answer to AuthInfo, with a principal qualified by the issuer', async () => {
    const auth = await verifier().verify('good', { resource: RESOURCE });
    expect(auth).toMatchObject({
      principal: `sub:alice@${encodeURIComponent(ISSUER)}`,
      subject: 'alice',
      issuer: ISSUER,
      clientId: 'app',
      scopes: ['a', 'b'],
      expiresAt: now + 30,
    });
    expect(endpoint.asked.at(-1)!.authorization).toBe(`Basic ${Buffer.from('rs%3A1:s%26cret').toString('base64')}`);
  });

  it('gives an answer without sub the client id as principal, under the configured issuer (or the endpoint origin)', async () => {
    expect((await verifier().verify('machine', { resource: RESOURCE })).principal).toBe(`client:machine-1@${encodeURIComponent(ISSUER)}`);
    const origin = new URL(endpoint.url).origin;
    expect((await verifier({ issuer: undefined }).verify('machine', { resource: RESOURCE })).principal).toBe(
      `client:machine-1@${encodeURIComponent(origin)}`,
    );
    // Naming nobody: no principal here; the resource server binds the caller to its token.
    expect((await verifier().verify('nobody', { resource: RESOURCE })).principal).toBeUndefined();
  });

  it('lets the resource server reuse its answer for cacheTtlMs (default 60 s), and 0 asks every time', async () => {
    const app = await McpApplication.create(WhoModule, {
      logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
    });
    const asks = () => endpoint.asked.filter((a) => a.token === 'hour').length;
    const call = (callback: RequestListener) =>
      request(callback)
        .post('/mcp')
        .set({ Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25', Authorization: 'Bearer hour' })
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'who', arguments: {} } })
        .expect(200);
    const served = (options: Partial<ConstructorParameters<typeof IntrospectionVerifier>[0]>) =>
      httpTransport(app, {
        sessions: false,
        auth: { authorizationServers: [ISSUER], resource: RESOURCE, verifier: verifier(options) },
      }).callback();
    try {
      const cached = served({});
      const start = Date.now();
      await call(cached);
      await call(cached);
      const clock = jest.spyOn(Date, 'now').mockReturnValue(start + 59_000);
      await call(cached);
      expect(asks()).toBe(1);
      clock.mockReturnValue(start + 61_000);
      await call(cached);
      expect(asks()).toBe(2);
      jest.restoreAllMocks();
      const uncached = served({ cacheTtlMs: 0 });
      await call(uncached);
      await call(uncached);
      expect(asks()).toBe(4);
    } finally {
      jest.restoreAllMocks();
      await app.close();
    }
  });

  it('refuses inactive tokens and tokens for another resource, asking every time', async () => {
    const v = verifier();
    const before = endpoint.asked.length;
    await expect(v.verify('unknown', { resource: RESOURCE })).rejects.toThrow(new InvalidTokenError('The token is not active'));
    await expect(v.verify('unknown', { resource: RESOURCE })).rejects.toThrow(InvalidTokenError);
    await expect(v.verify('other', { resource: RESOURCE })).rejects.toThrow(
      new InvalidTokenError('The token was not issued for this resource'),
    );
    expect(endpoint.asked.length).toBe(before + 3);
  });

  it.each([
    ['unsupported', 'The authorization server refused the token (unsupported_token_type)'],
    ['bad-request', 'The authorization server refused the token (invalid_request)'],
  ])('takes a 4xx answer about the token (%s) as an invalid token', async (token, description) => {
    await expect(verifier().verify(token, { resource: RESOURCE })).rejects.toThrow(new InvalidTokenError(description));
  });

  it.each(['own-credentials', 'own-credentials-400', 'rate-limited', 'server-error', 'not-json', 'no-active'])(
    'takes %s as a fault of the authorization server, not of the token',
    async (token) => {
      await expect(verifier().verify(token, { resource: RESOURCE })).rejects.toThrow(AuthorizationServerError);
    },
  );

  it('takes an unreachable authorization server as its fault', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/introspect`;
    await new Promise((r) => closed.close(r));
    await expect(verifier({ endpoint: url }).verify('good', { resource: RESOURCE })).rejects.toThrow(AuthorizationServerError);
  });
});
