import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IntrospectionVerifier, InvalidTokenError } from '../../../src';

const RESOURCE = 'https://mcp.example.com/mcp';

/** A loopback introspection endpoint answering from a table, recording what it was asked. */
async function introspectionEndpoint(answers: Record<string, Record<string, unknown>>) {
  const asked: { token: string; authorization?: string }[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const token = new URLSearchParams(body).get('token')!;
    asked.push({ token, authorization: req.headers.authorization });
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(answers[token] ?? { active: false }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/introspect`, asked, close: () => new Promise((r) => server.close(r)) };
}

describe('IntrospectionVerifier', () => {
  const now = Math.floor(Date.now() / 1000);
  const answers: Record<string, Record<string, unknown>> = {
    good: { active: true, sub: 'alice', client_id: 'app', scope: 'a b', aud: RESOURCE, iss: 'https://as.example.com', exp: now + 30 },
    other: { active: true, sub: 'alice', aud: 'https://elsewhere.example.com', exp: now + 30 },
  };
  let endpoint: Awaited<ReturnType<typeof introspectionEndpoint>>;
  beforeAll(async () => (endpoint = await introspectionEndpoint(answers)));
  afterAll(() => endpoint.close());
  afterEach(() => jest.restoreAllMocks());

  const verifier = () => new IntrospectionVerifier({ endpoint: endpoint.url, clientId: 'rs:1', clientSecret: 's&cret', issuer: 'https://as.example.com', cacheTtlMs: 60_000 });

  it('authenticates with client credentials and maps the answer to AuthInfo', async () => {
    const auth = await verifier().verify('good', { resource: RESOURCE });
    expect(auth).toMatchObject({ subject: 'alice', clientId: 'app', scopes: ['a', 'b'], expiresAt: now + 30 });
    expect(endpoint.asked.at(-1)!.authorization).toBe(`Basic ${Buffer.from('rs%3A1:s%26cret').toString('base64')}`);
  });

  it('reuses an active answer, but never past the token exp', async () => {
    const v = verifier();
    const before = endpoint.asked.length;
    await v.verify('good', { resource: RESOURCE });
    await v.verify('good', { resource: RESOURCE });
    expect(endpoint.asked.length).toBe(before + 1);
    const later = Date.now() + 31_000; // past exp (now + 30 s), well within cacheTtlMs
    jest.spyOn(Date, 'now').mockReturnValue(later);
    await expect(v.verify('good', { resource: RESOURCE })).rejects.toThrow(new InvalidTokenError('The token expired'));
    expect(endpoint.asked.length).toBe(before + 2);
  });

  it('refuses inactive tokens and tokens for another resource, and caches neither', async () => {
    const v = verifier();
    const before = endpoint.asked.length;
    await expect(v.verify('unknown', { resource: RESOURCE })).rejects.toThrow(new InvalidTokenError('The token is not active'));
    await expect(v.verify('unknown', { resource: RESOURCE })).rejects.toThrow(InvalidTokenError);
    await expect(v.verify('other', { resource: RESOURCE })).rejects.toThrow(new InvalidTokenError('The token was not issued for this resource'));
    expect(endpoint.asked.length).toBe(before + 3);
  });
});
