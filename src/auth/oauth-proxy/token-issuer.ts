import type { AuthInfo } from '../../context/mcp-context';
import { InvalidTokenError } from '../auth.errors';
import * as jose from 'jose';
import type { JWK, KeyLike } from 'jose';
import type { TokenVerifier, VerifyContext } from '../token-verifier';
import type { SigningJwk } from './oauth-proxy.options';
import { randomToken } from './pkce';
import type { GrantRecord, ProxyRecords } from './proxy-records';

interface Keys {
  alg: string;
  kid: string;
  privateKey: KeyLike | Uint8Array;
  publicKey: KeyLike | Uint8Array;
  publicJwk: JWK;
}

/** Signs the proxy's access tokens (RFC 9068 JWTs) and verifies them for the resource server. */
export class TokenIssuer {
  private keys?: Promise<Keys>;

  constructor(
    private readonly records: ProxyRecords,
    private readonly signingKey: SigningJwk | undefined,
    private readonly issuer: () => string | undefined,
  ) {}

  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: [(await this.load()).publicJwk] };
  }

  /** An access token for the grant, bound by `cnf.jkt` to the grant's key when it has one (RFC 9449 §6.1). */
  async sign(grant: GrantRecord, ttlSeconds: number): Promise<string> {
    const keys = await this.load();
    const now = Math.floor(Date.now() / 1000);
    const binding = grant.jkt ? { cnf: { jkt: grant.jkt } } : {};
    return new jose.SignJWT({ client_id: grant.clientId, scope: grant.scopes.join(' '), gid: grant.grantId, ...binding })
      .setProtectedHeader({ alg: keys.alg, kid: keys.kid, typ: 'at+jwt' })
      .setIssuer(this.issuer()!)
      .setSubject(grant.subject)
      .setAudience(grant.resource)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .setJti(randomToken(16))
      .sign(keys.privateKey);
  }

  /** A TokenVerifier accepting this proxy's live tokens for the resource being served. */
  verifier(): TokenVerifier {
    return { verify: (token, context) => this.verify(token, context) };
  }

  private async verify(token: string, context: VerifyContext): Promise<AuthInfo> {
    const issuer = this.issuer();
    if (!issuer) throw new InvalidTokenError('The token was not issued by this server');
    const keys = await this.load();
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jose.jwtVerify(token, keys.publicKey, {
        issuer,
        audience: context.resource,
        algorithms: [keys.alg],
        typ: 'at+jwt',
      }));
    } catch {
      throw new InvalidTokenError('The access token is invalid or expired');
    }
    // A revoked grant takes its access tokens with it.
    if (typeof payload.gid !== 'string' || !(await this.records.get(`grant:${payload.gid}`))) {
      throw new InvalidTokenError('The access token was revoked');
    }
    const scope = typeof payload.scope === 'string' ? payload.scope : '';
    return {
      subject: payload.sub as string,
      clientId: payload.client_id as string,
      scopes: scope ? scope.split(' ') : [],
      claims: payload,
      expiresAt: payload.exp as number,
    };
  }

  private load(): Promise<Keys> {
    this.keys ??= this.createKeys();
    return this.keys;
  }

  private async createKeys(): Promise<Keys> {
    if (this.signingKey) {
      const jwk = this.signingKey as JWK;
      const alg = this.signingKey.alg ?? (this.signingKey.kty === 'RSA' ? 'RS256' : 'ES256');
      const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicPart } = jwk;
      const kid = this.signingKey.kid ?? (await jose.calculateJwkThumbprint(publicPart));
      const privateKey = await jose.importJWK(jwk, alg);
      const publicKey = await jose.importJWK(publicPart, alg);
      return { alg, kid, privateKey, publicKey, publicJwk: { ...publicPart, kid, alg, use: 'sig' } };
    }
    const { privateKey, publicKey } = await jose.generateKeyPair('ES256', { extractable: true });
    const jwk = await jose.exportJWK(publicKey);
    const kid = await jose.calculateJwkThumbprint(jwk);
    return { alg: 'ES256', kid, privateKey, publicKey, publicJwk: { ...jwk, kid, alg: 'ES256', use: 'sig' } };
  }
}
