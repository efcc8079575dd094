import { randomUUID } from 'node:crypto';
import * as jose from 'jose';
import { injectable } from 'tsyringe';
import request from 'supertest';
import { EmptyInput, McpApplication, McpContext, McpModule, Tool } from '../../../../src';
import { type DpopStore, InMemoryDpopStore, StaticTokenVerifier } from '../../../../src/auth';
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

/** A DPoP-required server on `store`; `call(proof?)` sends a bound token with a new proof, or the one given. */
async function serverOn(store: DpopStore) {
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
    auth: { authorizationServers: ['https://as.example.com'], resource: RESOURCE, verifier, dpop: { mode: 'required' } },
  }).callback();
  const newProof = async () =>
    new jose.SignJWT({ htm: 'POST', htu: RESOURCE, jti: randomUUID(), ath: await sha256('bound') })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .setIssuedAt()
      .sign(keys.privateKey);
  const call = async (proof?: string) =>
    request(callback)
      .post('/mcp')
      .set({
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-11-25',
        Authorization: 'DPoP bound',
        DPoP: proof ?? (await newProof()),
      })
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
  return { app, call, newProof, errors };
}

/** The HTTP option `dpopStore`: where the proofs seen are kept, and what a client gets while it cannot answer. */
describe('the DPoP store of a resource server', () => {
  it('answers 503 while the store is down, logs the outage once, and serves again once it is back', async () => {
    const store = new FlakyStore();
    const { app, call, errors } = await serverOn(store);
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
    const { app, call, newProof, errors } = await serverOn(new InMemoryDpopStore({ maxBytes: 280 }));
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

async function sha256(text: string): Promise<string> {
  return Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))).toString('base64url');
}
