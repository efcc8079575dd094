import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, type KeyLike, SignJWT } from 'jose';

export interface TestKey {
  readonly kid: string;
  readonly privateKey: KeyLike;
  readonly publicKey: KeyLike;
  readonly jwk: JWK;
}

/** An RS256 key pair with its public JWK. */
export async function testKey(kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateKey, publicKey, jwk };
}

/** A JWKS on loopback (port 0) whose keys a test may change (rotation) or break (`status`); counts the fetches. */
export async function jwksServer(
  keys: TestKey[],
): Promise<{ url: string; keys: TestKey[]; status: number; fetches: () => number; close: () => Promise<void> }> {
  let fetches = 0;
  const state = { keys, status: 200 };
  const server: Server = createServer((_req, res) => {
    fetches++;
    res.statusCode = state.status;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ keys: state.keys.map((k) => k.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  return {
    url,
    get keys() {
      return state.keys;
    },
    set keys(next: TestKey[]) {
      state.keys = next;
    },
    get status() {
      return state.status;
    },
    /** Any status but 200 answers that status (with the keys still in the body: a broken server is broken). */
    set status(next: number) {
      state.status = next;
    },
    fetches: () => fetches,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A signed access token: one hour, issued now, unless `claims` say otherwise. */
export function signToken(
  key: TestKey,
  claims: JWTPayload,
  options: { alg?: string; typ?: string | null; kid?: string | null } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const header: Record<string, string> = { alg: options.alg ?? 'RS256' };
  const kid = options.kid === undefined ? key.kid : options.kid;
  if (kid !== null) header.kid = kid;
  const typ = options.typ === undefined ? 'at+jwt' : options.typ;
  if (typ !== null) header.typ = typ;
  return new SignJWT({ iat: now, exp: now + 3600, ...claims }).setProtectedHeader(header as { alg: string }).sign(key.privateKey);
}

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** An unsigned token (`alg: none`). */
export function unsignedToken(claims: JWTPayload): string {
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
}

/** The HS/RS confusion attack: HS256 keyed with the server's *public* RSA key (PEM), as a naive verifier would check it. */
export async function hmacWithPublicKey(key: TestKey, claims: JWTPayload): Promise<string> {
  const pem = await exportSPKI(key.publicKey);
  const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: key.kid })}.${b64(claims)}`;
  return `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`;
}
