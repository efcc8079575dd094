import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as jose from 'jose';
import request from 'supertest';
import { type DpopStore, InMemoryDpopStore, InMemoryOAuthProxyStore, type OAuthProxyStore, OAuthProxy } from '../../../src/auth';

const ISSUER = 'http://127.0.0.1:8080';
const upstream = {
  authorizationEndpoint: 'https://idp.example/authorize',
  tokenEndpoint: 'https://idp.example/token',
  clientId: 'fixed',
  clientSecret: 'secret',
};
const refused = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));

/** Stores that fail like an unreachable Redis while `down`. */
class FlakyProxyStore implements OAuthProxyStore {
  down = false;
  private readonly inner = new InMemoryOAuthProxyStore();
  put(key: string, value: string, ttlMs: number) {
    return this.down ? refused() : this.inner.put(key, value, ttlMs);
  }
  get(key: string) {
    return this.down ? refused() : this.inner.get(key);
  }
  take(key: string) {
    return this.down ? refused() : this.inner.take(key);
  }
  delete(key: string) {
    return this.down ? refused() : this.inner.delete(key);
  }
}
class FlakyDpopStore implements DpopStore {
  down = false;
  private readonly inner = new InMemoryDpopStore();
  firstUse(key: string, ttlMs: number) {
    return this.down ? refused() : this.inner.firstUse(key, ttlMs);
  }
  nonceKey() {
    return this.down ? refused() : this.inner.nonceKey();
  }
}

/** What a client of the OAuth proxy gets while a store it keeps its state in cannot answer. */
describe('the OAuth proxy when its stores fail', () => {
  function proxyOn(store: OAuthProxyStore, dpopStore: DpopStore) {
    const errors: string[] = [];
    const proxy = new OAuthProxy({
      issuer: ISSUER,
      resource: `${ISSUER}/mcp`,
      upstream,
      store,
      dpop: { store: dpopStore },
      logError: (message) => errors.push(message),
    });
    return { listener: proxy.listener(), errors };
  }
  const register = (listener: ReturnType<OAuthProxy['listener']>) =>
    request(listener)
      .post('/register')
      .send({ redirect_uris: ['http://localhost:3000/cb'], token_endpoint_auth_method: 'none' });

  it('answers 503 temporarily_unavailable with Retry-After, logs the outage once, and serves again once it is back', async () => {
    const store = new FlakyProxyStore();
    const { listener, errors } = proxyOn(store, new InMemoryDpopStore());
    const clientId = (await register(listener)).body.client_id as string;
    store.down = true;
    const answers = [
      await register(listener),
      await request(listener).post('/token').type('form').send({ grant_type: 'refresh_token', client_id: clientId, refresh_token: 'r' }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('5');
      expect(answer.body).toMatchObject({ error: 'temporarily_unavailable' });
    }
    store.down = false;
    expect((await register(listener)).status).toBe(201);
    expect(errors).toEqual([
      'A store of the OAuth proxy failed (logged once until it answers again)',
      'A store of the OAuth proxy answers again, after failing 2 request(s)',
    ]);
  });

  it('answers 503 when the DPoP store cannot say whether a proof at /token is new', async () => {
    const dpopStore = new FlakyDpopStore();
    const { listener, errors } = proxyOn(new InMemoryOAuthProxyStore(), dpopStore);
    const clientId = (await register(listener)).body.client_id as string;
    const keys = await jose.generateKeyPair('ES256');
    const proof = await new jose.SignJWT({ htm: 'POST', htu: `${ISSUER}/token`, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await jose.exportJWK(keys.publicKey) })
      .setIssuedAt()
      .sign(keys.privateKey);
    dpopStore.down = true;
    const answer = await request(listener)
      .post('/token')
      .set('DPoP', proof)
      .type('form')
      .send({ grant_type: 'refresh_token', client_id: clientId, refresh_token: 'r' });
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ error: 'temporarily_unavailable' });
    expect(errors).toEqual(['A store of the OAuth proxy failed (logged once until it answers again)']);
  });

  it('sends the client back with temporarily_unavailable when the identity provider cannot be reached, and goes on serving', async () => {
    // A port nothing listens on: discovery is refused at once.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadIssuer = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((r) => closed.close(r));
    const errors: string[] = [];
    const listener = new OAuthProxy({
      issuer: ISSUER,
      resource: `${ISSUER}/mcp`,
      upstream: { issuer: deadIssuer, clientId: 'fixed', clientSecret: 'secret' },
      consent: { skip: true },
      logError: (message) => errors.push(message),
    }).listener();
    const clientId = (await register(listener)).body.client_id as string;
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://localhost:3000/cb',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'client-state',
    });
    const answer = await request(listener).get(`/authorize?${query.toString()}`);
    expect(answer.status).toBe(302);
    const back = new URL(answer.headers.location);
    expect(`${back.origin}${back.pathname}`).toBe('http://localhost:3000/cb');
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'temporarily_unavailable', state: 'client-state', iss: ISSUER });
    expect(errors).toEqual(['OAuth proxy: the identity provider could not be reached']);
    expect((await register(listener)).status).toBe(201);
  });
});
