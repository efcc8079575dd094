import * as Jose from 'jose';
import type { AuthInfo } from '../context/mcp-context';
import { AuthorizationServerError, InvalidTokenError } from './auth.errors';
import { authInfoFromClaims } from './auth-info-from-claims';
import { JwksSource } from './jwks-source';
import type { TokenVerifier, VerifyContext } from './token-verifier';

/** The asymmetric algorithms accepted by default: a JWKS publishes public keys, so HS* and `none` never are. */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/** Options of JwtVerifier: give `jwksUri` (fetched, cached, refetched on an unknown key) or `jwks`. */
export interface JwtVerifierOptions {
  /** The authorization server's issuer identifier; the token's `iss` must equal it. */
  issuer: string;
  /** Where the signing keys are published (the `jwks_uri` of the authorization server's metadata). */
  jwksUri?: string | URL;
  /** A fixed key set (public JWKs) instead of `jwksUri`. */
  jwks?: { keys: readonly Record<string, unknown>[] };
  /** Accepted `aud` values (default: the protected resource's canonical URL, as RFC 8707 asks). */
  audience?: string | readonly string[];
  /** Accepted signing algorithms (default DEFAULT_JWT_ALGORITHMS); symmetric ones and `none` are refused. */
  algorithms?: readonly string[];
  /**
   * Refuse a JWT whose header `typ` is not `at+jwt` (or `application/at+jwt`), as RFC 9068 §4 asks:
   * an ID token or any other JWT of the same issuer is then never taken for an access token. Default
   * true; set false only for an authorization server that issues access tokens without `typ`.
   */
  requireAccessTokenType?: boolean;
  /** Allowed clock skew for `exp`/`nbf`, in seconds (default 5). */
  clockToleranceSec?: number;
  /**
   * Least time between two JWKS fetches caused by a token whose key is not in the set and that names no
   * new `kid`, in ms (default 30 000).
   */
  jwksCooldownMs?: number;
  /**
   * Least time between two JWKS fetches caused by a token naming a `kid` the set does not hold (a key
   * rotation), in ms (default 1 000). Such a token waits for the next allowed fetch (at most this long)
   * instead of being refused: forged `kid`s then cause one fetch per second at most.
   */
  jwksNewKeyFloorMs?: number;
  /** How long fetched keys are trusted before a refetch, in ms (default 10 minutes). */
  jwksCacheMaxAgeMs?: number;
  /** Timeout of a JWKS fetch, in ms (default 5 000). */
  jwksTimeoutMs?: number;
  /**
   * How long the resource server may reuse this verifier's answer for the same token, in ms (default:
   * `jwksCacheMaxAgeMs`, 10 minutes; never past the token's `exp`; 0 verifies every request). A JWT
   * cannot be revoked at the resource server anyway; what this bounds is how long a token signed with a
   * key the authorization server withdrew from its JWKS is still accepted.
   */
  cacheTtlMs?: number;
}

/**
 * Verifies JWT access tokens (RFC 9068) against a JWKS: signature, algorithm, `typ`, issuer, audience,
 * exp, nbf. Uses jose (loaded when a verifier is made), with web-standard crypto and fetch.
 */
export class JwtVerifier implements TokenVerifier {
  private readonly jose: typeof Jose;
  private readonly keys: Jose.JWTVerifyGetKey;
  private readonly algorithms: string[];
  readonly cacheTtlMs: number;

  constructor(private readonly options: JwtVerifierOptions) {
    const jose = (this.jose = Jose);
    if (!options.issuer) throw new TypeError('JwtVerifier: `issuer` is required');
    this.algorithms = [...(options.algorithms ?? DEFAULT_JWT_ALGORITHMS)];
    const refused = this.algorithms.filter((a) => a === 'none' || /^HS/i.test(a));
    if (refused.length > 0) throw new TypeError(`JwtVerifier: algorithms ${refused.join(', ')} cannot be verified with published keys`);
    const cacheMaxAgeMs = options.jwksCacheMaxAgeMs ?? 600_000;
    this.cacheTtlMs = options.cacheTtlMs ?? cacheMaxAgeMs;
    if (options.jwks) this.keys = jose.createLocalJWKSet(options.jwks as unknown as Jose.JSONWebKeySet);
    else if (options.jwksUri) {
      this.keys = new JwksSource(jose, new URL(options.jwksUri), {
        cacheMaxAgeMs,
        cooldownMs: options.jwksCooldownMs ?? 30_000,
        newKidFloorMs: options.jwksNewKeyFloorMs ?? 1_000,
        timeoutMs: options.jwksTimeoutMs ?? 5_000,
      }).getKey;
    } else throw new TypeError('JwtVerifier: give `jwksUri` or `jwks`');
  }

  async verify(token: string, context: VerifyContext): Promise<AuthInfo> {
    let payload: Jose.JWTPayload;
    try {
      ({ payload } = await this.jose.jwtVerify(token, this.keys, {
        issuer: this.options.issuer,
        audience:
          typeof this.options.audience === 'string'
            ? this.options.audience
            : this.options.audience
              ? [...this.options.audience]
              : context.resource,
        algorithms: this.algorithms,
        typ: this.options.requireAccessTokenType === false ? undefined : 'at+jwt',
        clockTolerance: this.options.clockToleranceSec ?? 5,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw toInvalidToken(error, this.jose.errors);
    }
    return authInfoFromClaims(payload, this.options.issuer);
  }
}

/** A short, client-safe description of why jose refused the token; faults of the key source stay faults. */
function toInvalidToken(error: unknown, errors: typeof Jose.errors): unknown {
  if (error instanceof AuthorizationServerError) return error;
  if (error instanceof errors.JWTExpired) return new InvalidTokenError('The token expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return new InvalidTokenError('The token is not valid yet');
    if (error.claim === 'aud') return new InvalidTokenError('The token was not issued for this resource');
    if (error.claim === 'iss') return new InvalidTokenError('The token was not issued by a trusted authorization server');
    if (error.claim === 'typ') return new InvalidTokenError('The token is not an access token (its typ is not at+jwt)');
    return new InvalidTokenError(`The token's ${error.claim} claim is invalid`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return new InvalidTokenError("The token's signing algorithm is not accepted");
  if (error instanceof errors.JWSSignatureVerificationFailed) return new InvalidTokenError("The token's signature is invalid");
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return new InvalidTokenError("The token's signing key is unknown");
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JOSENotSupported)
    return new InvalidTokenError('The token is malformed');
  return error;
}
