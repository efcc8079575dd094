import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientRegistry } from './client-registry';
import type { OAuthProxyOptions } from './oauth-proxy.options';
import { OAuthError } from './oauth.error';
import { isVerifier, randomToken, s256, sameSecret, tokenKey } from './pkce';
import { param, sendJson } from './proxy-http';
import type { ClientRecord, CodeRecord, GrantRecord, ProxyRecords } from './proxy-records';
import type { TokenIssuer } from './token-issuer';
import { DpopProofError, type ProofChecker } from '../dpop-proof';
import { type IdJagGrant, JWT_BEARER } from './id-jag.grant';

/** /token (authorization_code, refresh_token with rotation, the ID-JAG grant when enabled) and /revoke (RFC 7009). */
export class TokenEndpoint {
  constructor(
    private readonly records: ProxyRecords,
    private readonly clients: ClientRegistry,
    private readonly issuer: TokenIssuer,
    private readonly options: OAuthProxyOptions,
    private readonly proofs: ProofChecker,
    private readonly tokenUrl: () => string,
    private readonly idJag?: IdJagGrant,
  ) {}

  private get refreshTtl(): number {
    return this.options.ttl?.refreshToken ?? 30 * 86_400;
  }

  async token(req: IncomingMessage, res: ServerResponse, params: Record<string, unknown>): Promise<void> {
    const grantType = param(params, 'grant_type', true);
    const assertion = grantType === JWT_BEARER && this.idJag !== undefined;
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token' && !assertion)
      throw new OAuthError('unsupported_grant_type', `Unsupported grant_type ${grantType}`);
    const client = await this.authenticate(req, params);
    const jkt = await this.proofKey(req);
    const ttl = this.options.ttl?.accessToken ?? 3600;
    if (assertion) {
      const grant = await this.idJag.grant({
        assertion: param(params, 'assertion', true)!,
        client,
        scope: param(params, 'scope'),
        resource: param(params, 'resource'),
        jkt,
      });
      // No refresh token (the draft's advice): the grant lives as long as its access token.
      await this.records.put(`grant:${grant.grantId}`, grant, ttl);
      return this.answer(res, grant, ttl);
    }
    const grant = grantType === 'authorization_code' ? await this.redeemCode(client, params, jkt) : await this.rotate(client, params, jkt);
    const refreshToken = randomToken();
    await this.records.put(tokenKey('refresh', refreshToken), grant, this.refreshTtl);
    await this.answer(res, grant, ttl, refreshToken);
  }

  private async answer(res: ServerResponse, grant: GrantRecord, ttl: number, refreshToken?: string): Promise<void> {
    sendJson(res, 200, {
      access_token: await this.issuer.sign(grant, ttl),
      token_type: grant.jkt ? 'DPoP' : 'Bearer',
      expires_in: ttl,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      scope: grant.scopes.join(' '),
    });
  }

  /** Revokes the grant behind a refresh or access token (both die with it); unknown tokens are fine (RFC 7009). */
  async revoke(req: IncomingMessage, res: ServerResponse, params: Record<string, unknown>): Promise<void> {
    const token = param(params, 'token', true)!;
    const client = await this.authenticate(req, params);
    const grantId = (await this.records.get<GrantRecord>(tokenKey('refresh', token)))?.grantId ?? grantOfJwt(token);
    const grant = grantId ? await this.records.get<GrantRecord>(`grant:${grantId}`) : undefined;
    if (grant && grant.clientId === client.client_id) {
      await this.dropGrant(grant.grantId);
      await this.records.delete(tokenKey('refresh', token));
    }
    sendJson(res, 200, {});
  }

  /**
   * The thumbprint of the key a token request proves (its `DPoP` header, RFC 9449 §5), undefined when it
   * carries no proof; a bad proof is refused with `invalid_dpop_proof`.
   */
  private async proofKey(req: IncomingMessage): Promise<string | undefined> {
    const proof = req.headers.dpop;
    if (proof === undefined) return undefined;
    if (typeof proof !== 'string' || proof.includes(','))
      throw new OAuthError('invalid_dpop_proof', 'The request must carry one DPoP proof');
    try {
      return (await this.proofs.check(proof, { method: 'POST', url: this.tokenUrl() })).jkt;
    } catch (error) {
      if (error instanceof DpopProofError) throw new OAuthError('invalid_dpop_proof', error.description);
      throw error;
    }
  }

  private async redeemCode(client: ClientRecord, params: Record<string, unknown>, jkt: string | undefined): Promise<GrantRecord> {
    const code = param(params, 'code', true)!;
    const record = await this.records.get<CodeRecord>(tokenKey('code', code));
    if (!record || record.clientId !== client.client_id)
      throw new OAuthError('invalid_grant', 'The code is invalid, expired or already used');
    if (param(params, 'redirect_uri') !== record.redirectUri)
      throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
    const verifier = param(params, 'code_verifier');
    if (!verifier || !isVerifier(verifier) || !sameSecret(s256(verifier), record.codeChallenge))
      throw new OAuthError('invalid_grant', 'The PKCE code_verifier does not match');
    const resource = param(params, 'resource');
    if (resource !== undefined && resource !== record.resource)
      throw new OAuthError('invalid_target', 'resource differs from the authorization request');
    if (record.dpopJkt !== undefined && record.dpopJkt !== jkt)
      throw new OAuthError('invalid_grant', 'The code is bound to another DPoP key (dpop_jkt)');
    // Spent only by a request that may redeem it: a stolen code tried with the wrong verifier or key is not
    // burnt for its owner. Of two concurrent redemptions, the take lets one through.
    if (!(await this.records.take(tokenKey('code', code))))
      throw new OAuthError('invalid_grant', 'The code is invalid, expired or already used');
    const { redirectUri: _r, codeChallenge: _c, dpopJkt: _d, upstream, ...unbound } = record;
    const grant: GrantRecord = jkt ? { ...unbound, jkt } : unbound;
    // A grant lasts refreshToken seconds from the sign-in, however often its tokens are refreshed.
    await this.records.put(`grant:${grant.grantId}`, grant, this.refreshTtl);
    await this.records.put(`upstream:${grant.grantId}`, upstream, this.refreshTtl);
    return grant;
  }

  /**
   * One use per refresh token: a second use of a rotated token revokes the whole grant (it was stolen or
   * replayed). A public client's DPoP-bound grant is refreshed only with a proof of the same key (RFC 9449
   * §5); a confidential client's refresh binds the new tokens to the key it proves now, if any. A request
   * refused for its client or key does not use the token up: whoever stole it cannot burn it for its owner.
   */
  private async rotate(client: ClientRecord, params: Record<string, unknown>, jkt: string | undefined): Promise<GrantRecord> {
    const token = param(params, 'refresh_token', true)!;
    const record = await this.records.get<GrantRecord>(tokenKey('refresh', token));
    if (record && record.clientId !== client.client_id)
      throw new OAuthError('invalid_grant', 'The refresh token belongs to another client');
    if (record?.jkt !== undefined && client.token_endpoint_auth_method === 'none' && record.jkt !== jkt)
      throw new OAuthError('invalid_grant', 'The refresh token is bound to a DPoP key: prove it');
    if (!record || !(await this.records.take(tokenKey('refresh', token)))) {
      const replayed = await this.records.get<string>(tokenKey('used', token));
      if (replayed) await this.dropGrant(replayed);
      throw new OAuthError('invalid_grant', 'The refresh token is invalid, expired or already used');
    }
    await this.records.put(tokenKey('used', token), record.grantId, this.refreshTtl);
    const bound: GrantRecord = client.token_endpoint_auth_method === 'none' ? record : { ...record, jkt };
    if (!(await this.records.get(`grant:${record.grantId}`))) throw new OAuthError('invalid_grant', 'The grant was revoked');
    const resource = param(params, 'resource');
    if (resource !== undefined && resource !== record.resource) throw new OAuthError('invalid_target', 'resource differs from the grant');
    const scope = param(params, 'scope');
    if (scope === undefined) return bound;
    const narrowed = scope.split(' ').filter(Boolean);
    if (narrowed.some((s) => !record.scopes.includes(s))) throw new OAuthError('invalid_scope', 'A refresh cannot widen the scopes');
    return { ...bound, scopes: narrowed };
  }

  private async dropGrant(grantId: string): Promise<void> {
    await this.records.delete(`grant:${grantId}`);
    await this.records.delete(`upstream:${grantId}`);
  }

  /** Client authentication: public clients name themselves; confidential ones prove their secret (post or basic). */
  private async authenticate(req: IncomingMessage, params: Record<string, unknown>): Promise<ClientRecord> {
    let id = param(params, 'client_id');
    let secret = param(params, 'client_secret');
    const header = req.headers.authorization;
    if (header?.startsWith('Basic ')) {
      const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      id = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    }
    if (!id) throw new OAuthError('invalid_client', 'Client authentication is required', 401);
    const client = await this.clients.find(id).catch((error: unknown) => {
      throw error instanceof OAuthError ? new OAuthError('invalid_client', error.description, 401) : error;
    });
    if (client.token_endpoint_auth_method !== 'none' && (!secret || !client.client_secret || !sameSecret(secret, client.client_secret))) {
      throw new OAuthError('invalid_client', 'Client authentication failed', 401);
    }
    return client;
  }
}

function grantOfJwt(token: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { gid?: unknown };
    return typeof payload.gid === 'string' ? payload.gid : undefined;
  } catch {
    return undefined;
  }
}
