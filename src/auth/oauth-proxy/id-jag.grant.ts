import * as jose from 'jose';
import { AuthorizationServerError } from '../auth.errors';
import type { DpopStore } from '../dpop-store';
import { JwksSource } from '../jwks-source';
import { DEFAULT_JWT_ALGORITHMS } from '../jwt.verifier';
import { tokenDigest } from '../token-cache';
import type { EnterpriseOptions, TrustedIdentityProvider } from './oauth-proxy.options';
import { OAuthError } from './oauth.error';
import { randomToken } from './pkce';
import type { ClientRecord, GrantRecord } from './proxy-records';

/** RFC 7523's grant type, which carries an ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant). */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The profile the metadata names (`authorization_grant_profiles_supported`). */
export const ID_JAG_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';

/** What the token endpoint needs to know of one request for the grant. */
export interface IdJagRequest {
  readonly assertion: string;
  readonly client: ClientRecord;
  /** The `scope` parameter, when given: the grant is its intersection with the assertion's. */
  readonly scope?: string;
  /** The `resource` parameter (RFC 8707), when given. */
  readonly resource?: string;
  /** The key the request's DPoP proof was signed with, if it carried one. */
  readonly jkt?: string;
}

interface Provider {
  readonly trusted: TrustedIdentityProvider;
  readonly keys: jose.JWTVerifyGetKey;
  readonly algorithms: string[];
}

/**
 * Enterprise-managed authorization (the MCP `ext-auth` extension): the token endpoint takes an identity
 * assertion JWT authorization grant (ID-JAG) that an identity provider the server trusts issued for this
 * authorization server, and answers with the proxy's own access token for the user and the client the
 * assertion names. Each assertion is taken once (its `jti`, shared through the DPoP store).
 */
export class IdJagGrant {
  private readonly providers = new Map<string, Provider>();

  constructor(
    private readonly options: EnterpriseOptions,
    private readonly issuer: () => string,
    private readonly resources: readonly string[],
    private readonly scopesSupported: readonly string[] | undefined,
    private readonly seen: DpopStore,
    private readonly upstreamIssuer: string | undefined,
  ) {
    if (options.identityProviders.length === 0) throw new TypeError('OAuthProxy: enterprise.identityProviders must name at least one');
    for (const trusted of options.identityProviders) this.providers.set(trusted.issuer, provider(trusted));
  }

  /** The grant an assertion stands for, or an OAuthError (`invalid_grant`, `unauthorized_client`, `invalid_scope`...). */
  async grant(request: IdJagRequest): Promise<GrantRecord> {
    const { client } = request;
    if (client.token_endpoint_auth_method === 'none')
      throw new OAuthError('unauthorized_client', 'Only a client that authenticates may present an identity assertion');
    const source = this.providerOf(request.assertion);
    if (source.trusted.clients && !source.trusted.clients.includes(client.client_id))
      throw new OAuthError('unauthorized_client', 'This client may not present assertions of that identity provider');
    const claims = await this.verified(request.assertion, source);
    if (claims.client_id !== client.client_id) throw new OAuthError('invalid_grant', 'The assertion was issued to another client');
    const bound = boundKey(claims.cnf);
    if (bound !== undefined && bound !== request.jkt)
      throw new OAuthError('invalid_grant', 'The assertion is bound to a key: prove it with a DPoP proof');
    const resource = this.resourceOf(claims.resource, request.resource);
    const scopes = this.scopesOf(claims.scope, source.trusted, request.scope);
    // Kept until the assertion's exp has passed on a clock running the tolerance behind.
    const windowMs = ((claims.exp as number) + this.clockToleranceSec) * 1000 - Date.now();
    if (!(await this.seen.firstUse(tokenDigest(`id-jag.${claims.iss}.${claims.jti}`), Math.max(1000, windowMs))))
      throw new OAuthError('invalid_grant', 'The assertion was used before');
    return {
      grantId: randomToken(16),
      clientId: client.client_id,
      scopes,
      resource,
      subject: this.subjectOf(claims, source.trusted),
      ...(request.jkt ? { jkt: request.jkt } : {}),
    };
  }

  private providerOf(assertion: string): Provider {
    let iss: unknown;
    try {
      iss = jose.decodeJwt(assertion).iss;
    } catch {
      throw new OAuthError('invalid_grant', 'The assertion is not a JWT');
    }
    const source = typeof iss === 'string' ? this.providers.get(iss) : undefined;
    if (!source) throw new OAuthError('invalid_grant', 'The assertion was not issued by a trusted identity provider');
    return source;
  }

  private async verified(assertion: string, source: Provider): Promise<jose.JWTPayload> {
    const issuer = this.issuer();
    let payload: jose.JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(assertion, source.keys, {
        issuer: source.trusted.issuer,
        audience: issuer,
        typ: 'oauth-id-jag+jwt',
        algorithms: source.algorithms,
        requiredClaims: ['sub', 'client_id', 'jti', 'exp', 'iat'],
        clockTolerance: this.clockToleranceSec,
        maxTokenAge: this.options.maxAssertionAgeSec ?? 300,
      }));
    } catch (error) {
      if (error instanceof AuthorizationServerError)
        throw new OAuthError('temporarily_unavailable', "The identity provider's keys could not be fetched", 503);
      throw new OAuthError('invalid_grant', reason(error));
    }
    // An assertion for several audiences could be replayed at the others: exactly this server (draft §4.4.1).
    if (Array.isArray(payload.aud) && payload.aud.length !== 1)
      throw new OAuthError('invalid_grant', 'The assertion names other audiences too');
    return payload;
  }

  private get clockToleranceSec(): number {
    return this.options.clockToleranceSec ?? 30;
  }

  /**
   * Who the token is for: the provider's `subject` mapping; else the assertion's `sub` when the provider is
   * the upstream one (its users sign in either way as one principal), or `sub` qualified by the issuer, so
   * that another provider's `alice` is never the upstream's.
   */
  private subjectOf(claims: jose.JWTPayload, trusted: TrustedIdentityProvider): string {
    if (trusted.subject) return trusted.subject(claims);
    return trusted.issuer === this.upstreamIssuer ? claims.sub! : `${trusted.issuer}#${claims.sub}`;
  }

  private resourceOf(claimed: unknown, asked: string | undefined): string {
    const named = claimed === undefined ? [] : typeof claimed === 'string' ? [claimed] : claimed;
    if (!Array.isArray(named) || !named.every((r): r is string => typeof r === 'string'))
      throw new OAuthError('invalid_grant', "The assertion's resource claim is neither a URI nor a list of URIs");
    if (named.some((r) => !this.resources.includes(r)))
      throw new OAuthError('invalid_grant', 'The assertion names a resource this server does not serve');
    const candidates = named.length > 0 ? named : this.resources;
    if (asked !== undefined && !candidates.includes(asked))
      throw new OAuthError('invalid_target', 'resource is not one the assertion allows');
    return asked ?? candidates[0];
  }

  /** The assertion's scopes as this server names them, narrowed to those asked for (MCP profile: their intersection). */
  private scopesOf(claimed: unknown, trusted: TrustedIdentityProvider, asked: string | undefined): string[] {
    const mapping = trusted.scopes;
    const granted = new Set<string>();
    for (const scope of typeof claimed === 'string' ? claimed.split(' ').filter(Boolean) : []) {
      // Own keys only: a scope named `constructor` or `__proto__` maps to nothing.
      const mapped = mapping ? (Object.hasOwn(mapping, scope) ? mapping[scope] : undefined) : scope;
      for (const s of mapped === undefined ? [] : typeof mapped === 'string' ? [mapped] : mapped) {
        if (!this.scopesSupported || this.scopesSupported.includes(s)) granted.add(s);
      }
    }
    if (asked === undefined) return [...granted];
    const narrowed = asked.split(' ').filter((s) => granted.has(s));
    if (narrowed.length === 0) throw new OAuthError('invalid_scope', 'None of the scopes asked for is granted by the assertion');
    return narrowed;
  }
}

/** The thumbprint a `cnf` claim binds to (RFC 7800 with `jkt`), undefined without one; any other `cnf` is refused. */
function boundKey(cnf: unknown): string | undefined {
  if (cnf === undefined) return undefined;
  const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as { jkt?: unknown }).jkt : undefined;
  if (typeof jkt !== 'string') throw new OAuthError('invalid_grant', 'The assertion is bound by a cnf claim this server cannot check');
  return jkt;
}

function provider(trusted: TrustedIdentityProvider): Provider {
  const algorithms = [...(trusted.algorithms ?? DEFAULT_JWT_ALGORITHMS)];
  if (algorithms.some((a) => a === 'none' || /^HS/i.test(a)))
    throw new TypeError('OAuthProxy: an identity provider signs with asymmetric algorithms only');
  let keys: jose.JWTVerifyGetKey;
  if (trusted.jwks) keys = jose.createLocalJWKSet(trusted.jwks as unknown as jose.JSONWebKeySet);
  else if (trusted.jwksUri)
    keys = new JwksSource(jose, new URL(trusted.jwksUri), {
      cacheMaxAgeMs: 600_000,
      cooldownMs: 30_000,
      newKidFloorMs: 1_000,
      timeoutMs: 5_000,
    }).getKey;
  else throw new TypeError(`OAuthProxy: give the identity provider ${trusted.issuer} a jwksUri or jwks`);
  return { trusted, keys, algorithms };
}

/** A short, client-safe reason jose refused the assertion. */
function reason(error: unknown): string {
  if (error instanceof jose.errors.JWTExpired) return 'The assertion expired';
  if (error instanceof jose.errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'The assertion was not issued for this authorization server';
    if (error.claim === 'typ') return 'The assertion is not an ID-JAG (its typ is not oauth-id-jag+jwt)';
    if (error.reason === 'missing') return `The assertion has no ${error.claim}`;
    return `The assertion's ${error.claim} claim is invalid`;
  }
  if (error instanceof jose.errors.JOSEAlgNotAllowed) return "The assertion's signing algorithm is not accepted";
  if (error instanceof jose.errors.JWSSignatureVerificationFailed) return "The assertion's signature is invalid";
  if (error instanceof jose.errors.JWKSNoMatchingKey) return "The assertion's signing key is unknown";
  return 'The assertion is malformed';
}
