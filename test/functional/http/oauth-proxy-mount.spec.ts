import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import request from 'supertest';
import { OAuthProxy } from '../../../src/auth';
import { ACCEPT_BOTH, httpApp, initializeBody } from '../../helpers/http-app';

const upstream = {
  authorizationEndpoint: 'https://idp.example/authorize',
  tokenEndpoint: 'https://idp.example/token',
  clientId: 'fixed',
  clientSecret: 'secret',
};

describe('the OAuth proxy mounted on the HTTP transport', () => {
  it('serves the authorization server next to the MCP endpoint, on the same port', async () => {
    const proxy = new OAuthProxy({ issuer: 'http://127.0.0.1:8080', resource: 'http://127.0.0.1:8080/mcp', upstream });
    const { app, transport } = await httpApp({ oauthProxy: proxy });
    const server = transport.callback();
    const metadata = await request(server).get('/.well-known/oauth-authorization-server');
    expect(metadata.status).toBe(200);
    expect(metadata.body).toMatchObject({
      issuer: 'http://127.0.0.1:8080',
      authorization_endpoint: 'http://127.0.0.1:8080/authorize',
      code_challenge_methods_supported: ['S256'],
    });
    const registered = await request(server)
      .post('/register')
      .send({ redirect_uris: ['http://localhost:3000/cb'], token_endpoint_auth_method: 'none' });
    expect(registered.status).toBe(201);
    expect(registered.body.client_secret).toBeUndefined();
    const init = await request(server).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
    expect(init.status).toBe(200);
    await app.close();
  });

  it('goes along with transport.middleware() into an existing Koa app, its issuer taken from the first request when not configured', async () => {
    const proxy = new OAuthProxy({ resource: 'http://127.0.0.1/mcp', upstream });
    const { app, transport } = await httpApp({ oauthProxy: proxy });
    const koa = new Koa();
    koa.use(transport.middleware());
    const server = koa.callback();
    const metadata = await request(server).get('/.well-known/openid-configuration').set('Host', '127.0.0.1:4321');
    expect(metadata.body.issuer).toBe('http://127.0.0.1:4321');
    expect(proxy.issuer).toBe('http://127.0.0.1:4321');
    const bad = await request(server)
      .post('/register')
      .send({ redirect_uris: ['http://evil.example/cb'] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid_redirect_uri' });
    const authorize = await request(server).get('/authorize?client_id=unknown&redirect_uri=http://localhost/cb');
    expect(authorize.status).toBe(400);
    expect(authorize.body).toMatchObject({ error: 'invalid_client' });
    await app.close();
  });

  it('refuses a registration body past 64 KiB, whether declared or streamed, and goes on serving', async () => {
    const proxy = new OAuthProxy({ issuer: 'http://127.0.0.1:8080', resource: 'http://127.0.0.1:8080/mcp', upstream });
    const { app, transport } = await httpApp({ oauthProxy: proxy });
    const server = transport.callback();
    const huge = JSON.stringify({ redirect_uris: ['http://localhost:3000/cb'], padding: 'x'.repeat(70 * 1024) });
    const declared = await request(server).post('/register').set('Content-Type', 'application/json').send(huge);
    expect(declared.status).toBe(400);
    expect(declared.body).toMatchObject({ error: 'invalid_request', error_description: 'The request body is too large' });
    const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const listener = createServer((req, res) => void server(req, res)).listen(0, '127.0.0.1', () => {
        const { port } = listener.address() as AddressInfo;
        const req = httpRequest({
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: '/register',
          headers: { 'content-type': 'application/json' },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          res.on('end', () => listener.close(() => resolve({ status: res.statusCode ?? 0, body })));
        });
        req.on('error', reject);
        req.end(huge); // chunked: no Content-Length, the limit is found while reading
      });
    });
    expect(streamed.status).toBe(400);
    expect(JSON.parse(streamed.body)).toMatchObject({ error: 'invalid_request' });
    const registered = await request(server)
      .post('/register')
      .send({ redirect_uris: ['http://localhost:3000/cb'], token_endpoint_auth_method: 'none' });
    expect(registered.status).toBe(201);
    await app.close();
  });

  it('refuses to take its issuer from a request that is not to a loopback host', async () => {
    const errors: unknown[] = [];
    const proxy = new OAuthProxy({ resource: 'https://mcp.example/mcp', upstream, logError: (m) => errors.push(m) });
    const { app, transport } = await httpApp({ oauthProxy: proxy, dnsRebindingProtection: false });
    const metadata = await request(transport.callback()).get('/.well-known/oauth-authorization-server').set('Host', 'evil.example');
    expect(metadata.status).toBe(500);
    expect(metadata.body).toMatchObject({ error: 'server_error' });
    expect(proxy.issuer).toBeUndefined();
    expect(errors).toHaveLength(1);
    await app.close();
  });

  it('with consent skipped, sends the user straight to the upstream with the fixed client id, its own PKCE and state', async () => {
    const proxy = new OAuthProxy({
      issuer: 'http://127.0.0.1:8080',
      resource: 'http://127.0.0.1:8080/mcp',
      upstream: { ...upstream, scopes: ['read:user'] },
      consent: { skip: true },
    });
    const { app, transport } = await httpApp({ oauthProxy: proxy });
    const server = transport.callback();
    const { client_id } = (
      await request(server)
        .post('/register')
        .send({ redirect_uris: ['http://localhost:3000/cb'], token_endpoint_auth_method: 'none' })
    ).body as { client_id: string };
    const query = new URLSearchParams({
      response_type: 'code',
      client_id,
      redirect_uri: 'http://localhost:3000/cb',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
      state: 'mine',
    });
    const answer = await request(server).get(`/authorize?${query.toString()}`);
    expect(answer.status).toBe(302);
    const to = new URL(answer.headers.location);
    expect(`${to.origin}${to.pathname}`).toBe('https://idp.example/authorize');
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: 'fixed',
      redirect_uri: 'http://127.0.0.1:8080/callback',
      scope: 'read:user',
      code_challenge_method: 'S256',
    });
    expect(to.searchParams.get('state')).not.toBe('mine');
    expect(to.searchParams.get('code_challenge')).not.toBe('x'.repeat(43));
    await app.close();
  });

  it('shows a consent page that escapes what the client registered and sets its CSRF cookie HttpOnly', async () => {
    const proxy = new OAuthProxy({ issuer: 'http://127.0.0.1:8080', resource: 'http://127.0.0.1:8080/mcp', upstream });
    const { app, transport } = await httpApp({ oauthProxy: proxy });
    const server = transport.callback();
    const { client_id } = (
      await request(server)
        .post('/register')
        .send({
          client_name: '<script>alert(1)</script>',
          redirect_uris: ['https://client.example/cb'],
          token_endpoint_auth_method: 'none',
        })
    ).body as { client_id: string };
    const query = new URLSearchParams({
      response_type: 'code',
      client_id,
      redirect_uri: 'https://client.example/cb',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    });
    const page = await request(server).get(`/authorize?${query.toString()}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<script>');
    expect(page.text).toContain('&#60;script&#62;');
    expect(page.text).toContain('client.example');
    expect(page.headers['set-cookie'][0]).toMatch(/HttpOnly; SameSite=Lax/);
    await app.close();
  });
});
