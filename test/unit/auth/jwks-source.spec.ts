import { AuthorizationServerError, InvalidTokenError, JwtVerifier } from '../../../src/auth';
import { jwksServer, signToken, type TestKey, testKey } from '../../helpers/jwks-server';

const ISSUER = 'https://as.example.com';
const RESOURCE = 'https://mcp.example.com/mcp';
const claims = { iss: ISSUER, aud: RESOURCE, sub: 'alice', client_id: 'app' };

describe('JwtVerifier key source (jwksUri)', () => {
  let keyA: TestKey;
  let keyB: TestKey;
  let jwks: Awaited<ReturnType<typeof jwksServer>>;
  beforeAll(async () => ([keyA, keyB] = await Promise.all([testKey('a'), testKey('b')])));
  beforeEach(async () => (jwks = await jwksServer([keyA])));
  afterEach(() => jwks.close());

  const verify = (verifier: JwtVerifier, token: string) => verifier.verify(token, { resource: RESOURCE });

  it('picks up a rotated key named by a new kid without waiting out the cooldown (default 30 s)', async () => {
    const verifier = new JwtVerifier({ issuer: ISSUER, jwksUri: jwks.url });
    await verify(verifier, await signToken(keyA, claims));
    expect(jwks.fetches()).toBe(1);
    jwks.keys = [keyA, keyB];
    const started = Date.now();
    // The last fetch is younger than the 1 s floor: the token waits for it, then is accepted.
    await expect(verify(verifier, await signToken(keyB, claims))).resolves.toMatchObject({ subject: 'alice' });
    expect(jwks.fetches()).toBe(2);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('fetches for a new kid once its wait ends, even when the clock says the floor has not quite passed', async () => {
    const verifier = new JwtVerifier({ issuer: ISSUER, jwksUri: jwks.url });
    await verify(verifier, await signToken(keyA, claims));
    jwks.keys = [keyA, keyB];
    const token = await signToken(keyB, claims);
    // The clock stops: after the token's wait it still reads less than the floor since the last fetch (a timer
    // that fires a millisecond early reads the same).
    const frozen = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(frozen);
    try {
      await expect(verify(verifier, token)).resolves.toMatchObject({ subject: 'alice' });
    } finally {
      clock.mockRestore();
    }
    expect(jwks.fetches()).toBe(2);
  });

  it('lets forged kids cause one fetch per floor at most, however many arrive', async () => {
    const verifier = new JwtVerifier({ issuer: ISSUER, jwksUri: jwks.url, jwksNewKeyFloorMs: 200 });
    await verify(verifier, await signToken(keyA, claims));
    const forged = await Promise.all(Array.from({ length: 25 }, (_, i) => signToken(keyB, claims, { kid: `forged-${i}` })));
    const results = await Promise.allSettled(forged.map((t) => verify(verifier, t)));
    expect(
      results.every(
        (r) =>
          r.status === 'rejected' && r.reason instanceof InvalidTokenError && r.reason.description === "The token's signing key is unknown",
      ),
    ).toBe(true);
    expect(jwks.fetches()).toBe(2);
  });

  it('does not refetch within the cooldown for a token naming no new kid', async () => {
    const verifier = new JwtVerifier({ issuer: ISSUER, jwksUri: jwks.url, jwksNewKeyFloorMs: 0 });
    await verify(verifier, await signToken(keyA, claims));
    // Signed with B but naming no kid: A's key does not verify it, and no fetch is made for it.
    await expect(verify(verifier, await signToken(keyB, claims, { kid: null }))).rejects.toThrow(InvalidTokenError);
    expect(jwks.fetches()).toBe(1);
  });

  it('keeps verifying with the keys it holds while the JWKS endpoint fails', async () => {
    const verifier = new JwtVerifier({ issuer: ISSUER, jwksUri: jwks.url, jwksCacheMaxAgeMs: 1, jwksNewKeyFloorMs: 0 });
    const token = await signToken(keyA, claims);
    await verify(verifier, token);
    jwks.status = 500;
    await new Promise((r) => setTimeout(r, 5));
    await expect(verify(verifier, token)).resolves.toMatchObject({ subject: 'alice' });
    expect(jwks.fetches()).toBe(2);
  });

  it('fails with AuthorizationServerError when no keys could ever be fetched, and does not retry at once', async () => {
    jwks.status = 503;
    const verifier = new JwtVerifier({ issuer: ISSUER, jwksUri: jwks.url });
    const token = await signToken(keyA, claims);
    await expect(verify(verifier, token)).rejects.toThrow(AuthorizationServerError);
    await expect(verify(verifier, token)).rejects.toThrow(AuthorizationServerError);
    expect(jwks.fetches()).toBe(1);
  });

  it('takes a JWKS that is not a key set as a fault of the authorization server', async () => {
    jwks.keys = [];
    const broken = { ...keyA, jwk: 'not a key' as never };
    jwks.keys = [broken];
    const verifier = new JwtVerifier({ issuer: ISSUER, jwksUri: jwks.url });
    await expect(verify(verifier, await signToken(keyA, claims))).rejects.toThrow(AuthorizationServerError);
  });
});

describe('JwtVerifier token type (RFC 9068 §4)', () => {
  let key: TestKey;
  beforeAll(async () => (key = await testKey('k')));
  const jwks = () => ({ keys: [key.jwk as unknown as Record<string, unknown>] });

  it.each([['at+jwt'], ['application/at+jwt'], ['AT+JWT']])('accepts typ %s', async (typ) => {
    const verifier = new JwtVerifier({ issuer: ISSUER, jwks: jwks() });
    await expect(verifier.verify(await signToken(key, claims, { typ }), { resource: RESOURCE })).resolves.toMatchObject({
      subject: 'alice',
    });
  });

  it.each([['JWT'], [null]])(
    'refuses typ %s (an ID token or another JWT of the same issuer), unless told the server sets no typ',
    async (typ) => {
      const token = await signToken(key, claims, { typ });
      await expect(new JwtVerifier({ issuer: ISSUER, jwks: jwks() }).verify(token, { resource: RESOURCE })).rejects.toThrow(
        new InvalidTokenError('The token is not an access token (its typ is not at+jwt)'),
      );
      await expect(
        new JwtVerifier({ issuer: ISSUER, jwks: jwks(), requireAccessTokenType: false }).verify(token, { resource: RESOURCE }),
      ).resolves.toMatchObject({ subject: 'alice' });
    },
  );

  it('gives the principal from sub, else client_id, qualified by the issuer', async () => {
    const verifier = new JwtVerifier({ issuer: ISSUER, jwks: jwks() });
    const iss = encodeURIComponent(ISSUER);
    expect((await verifier.verify(await signToken(key, claims), { resource: RESOURCE })).principal).toBe(`sub:alice@${iss}`);
    expect((await verifier.verify(await signToken(key, { ...claims, sub: undefined }), { resource: RESOURCE })).principal).toBe(
      `client:app@${iss}`,
    );
    expect(
      (await verifier.verify(await signToken(key, { ...claims, sub: undefined, client_id: undefined, azp: 'web' }), { resource: RESOURCE }))
        .principal,
    ).toBe(`client:web@${iss}`);
  });
});
