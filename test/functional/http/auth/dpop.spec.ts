import { randomUUID } from 'node:crypto';
import * as jose from 'jose';
import { injectable } from 'tsyringe';
import request from 'supertest';
import { EmptyInput, McpApplication, McpContext, McpModule, Tool } from '../../../../src';
import { type DpopOptions, type DpopStore, InMemoryDpopStore, StaticTokenVerifier } from '../../../../src/auth';
import { httpTransport } from '../../../../src/http';

const RESOURCE = 'https://mcp.example.com/mcp';

@injectable()
class Who {
  @Tool({ description: 'Tells who is calling' })
  whoami(_: EmptyInput, ctx: McpContext) {
    return String(ctx.auth?.subject);
  }
}

@McpModule({ providers: [Who], server: { name: 'dpop-store', version: '1.0.0' } })
class DpopStoreModule {}

/** A store that fails like an unreachable Redis while `down`. */
class FlakyStore implements DpopStore {
  down = false;
  private readonly inner = new InMemoryDpopStore();
  firstUse(key: string, ttlMs: number) {
    return this.down ? Promise.reject(new Error('connect ECONNREFUSED')) : this.inner.firstUse(key, ttlMs);
  }
  nonceKey() {
    return this.down ? Promise.reject(new Error('connect ECONNREFUSED')) : this.inner.nonceKey();
  }
}

interface Served {
  store?: DpopStore;
  resource?: string;
  dpop?: DpopOptions;
}

/**
 * A DPoP server (required mode by default) on `store`; `call(proof?, authorization?)` sends the bound token with a
 * new proof, or the one given; `newProof(claims)` makes one, for the resource URL unless `htu` says otherwise.
 */
async function serve({ store = new InMemoryDpopStore(), resource = RESOURCE, dpop = { mode: 'required' } }: Served = {}) {
  const keys = await jose.generateKeyPair('ES256');
  const jwk = await jose.exportJWK(keys.publicKey);
  const jkt = await jose.calculateJwkThumbprint(jwk);
  const verifier = new StaticTokenVerifier({ bound: { subject: 'alice', claims: { cnf: { jkt } } } });
  const errors: string[] = [];
  const app = await McpApplication.create(DpopStoreModule, {
    logger: { error: (m: string) => errors.push(m), warn: () => undefined, info: () => undefined },
  });
  const callback = httpTransport(app, {
    sessions: false,
    dpopStore: store,
    auth: { authorizationServers: ['https://as.example.com'], resource, verifier, dpop },
  }).callback();
  const newProof = async (claims: Record<string, unknown> = {}) =>
    new jose.SignJWT({ htm: 'POST', htu: RESOURCE, jti: randomUUID(), ath: await sha256('bound'), ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .setIssuedAt()
      .sign(keys.privateKey);
  const call = async (proof?: string, authorization = 'DPoP bound') =>
    request(callback)
      .post('/mcp')
      .set({
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-11-25',
        Authorization: authorization,
        DPoP: proof ?? (await newProof()),
      })
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
  return { app, call, newProof, errors };
}

/** The HTTP option `dpopStore`: where the proofs seen are kept, and what a client gets while it cannot answer. */
describe('the DPoP store of a resource server', () => {
  it('answers 503 while the store is down, logs the outage once, and serves again once it is back', async () => {
    const store = new FlakyStore();
    const { app, call, errors } = await serve({ store });
    try {
      expect((await call()).body.result.content[0].text).toBe('alice');
      store.down = true;
      for (let i = 0; i < 3; i++) {
        const refused = await call();
        expect(refused.status).toBe(503);
        expect(refused.headers['retry-after']).toBe('5');
      }
      store.down = false;
      expect((await call()).body.result.content[0].text).toBe('alice');
      expect(errors).toEqual([
        'The DPoP store failed (logged once until it answers again)',
        'The DPoP store answers again, after failing 3 request(s)',
      ]);
    } finally {
      await app.close();
    }
  });

  it('refuses new proofs with 503 while the in-memory record is full, and still refuses a replay of a proof it holds', async () => {
    // Room for two proofs: a full record must not forget one still within its window to make room.
    const { app, call, newProof, errors } = await serve({ store: new InMemoryDpopStore({ maxBytes: 360 }) });
    try {
      const first = await newProof();
      expect((await call(first)).body.result.content[0].text).toBe('alice');
      expect((await call()).body.result.content[0].text).toBe('alice');
      const full = await call();
      expect(full.status).toBe(503);
      expect(full.headers['retry-after']).toBe('5');
      const replay = await call(first);
      expect(replay.status).toBe(401);
      expect(replay.headers['www-authenticate']).toMatch(/error="invalid_dpop_proof"/);
      expect(errors).toEqual(['The DPoP store failed (logged once until it answers again)']);
    } finally {
      await app.close();
    }
  });
});

describe('DPoP proofs at a resource server', () => {
  it('takes the URL the client used as htu when the resource is origin-only', async () => {
    const { app, call, newProof } = await serve({ resource: 'https://mcp.example.com' });
    try {
      const served = await call(await newProof({ htu: 'https://mcp.example.com/mcp' }));
      expect(served.body.result.content[0].text).toBe('alice');
      const bare = await call(await newProof({ htu: 'https://mcp.example.com' }));
      expect(bare.status).toBe(401);
      expect(bare.headers['www-authenticate']).toMatch(/error="invalid_dpop_proof", error_description="[^"]*htu/);
    } finally {
      await app.close();
    }
  });

  it('refuses a nonce past its lifetime with use_dpop_nonce and a fresh one', async () => {
    const { app, call, newProof } = await serve({ dpop: { mode: 'required', nonce: { lifetimeSec: 1 } } });
    try {
      const asked = await call();
      expect(asked.headers['www-authenticate']).toMatch(/error="use_dpop_nonce"/);
      const nonce = asked.headers['dpop-nonce'];
      expect((await call(await newProof({ nonce }))).body.result.content[0].text).toBe('alice');
      await new Promise((r) => setTimeout(r, 2_100));
      const stale = await call(await newProof({ nonce }));
      expect(stale.status).toBe(401);
      expect(stale.headers['www-authenticate']).toMatch(/error="use_dpop_nonce"/);
      expect(stale.headers['dpop-nonce']).not.toBe(nonce);
    } finally {
      await app.close();
    }
  });

  it.each([
    ['a scheme alone', 'DPoP'],
    ['a scheme and a space', 'DPoP '],
    ['two tokens', 'DPoP bound other'],
    ['a token with a character outside token68', 'DPoP bo"und'],
    ['another scheme', 'Basic Ym91bmQ6'],
    ['no space after the scheme', 'DPoPbound'],
  ])('refuses an Authorization header with %s (401 invalid_token) and goes on serving', async (_case, header) => {
    const { app, call } = await serve();
    try {
      const refused = await call(undefined, header);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toMatch(
        /error="invalid_token", error_description="The Authorization header is not a bearer token"/,
      );
      expect((await call()).body.result.content[0].text).toBe('alice');
    } finally {
      await app.close();
    }
  });
});

async function sha256(text: string): Promise<string> {
  return Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))).toString('base64url');
}
