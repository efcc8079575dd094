import { createHmac, timingSafeEqual } from 'node:crypto';
import type * as Jose from 'jose';
import { tokenDigest } from './token-cache';
import { AuthConfigurationError } from './auth-configuration.error';
import type { DpopStore } from './dpop-store';
import type { DpopOptions } from './resource-server-options';

/** The asymmetric algorithms a DPoP proof may be signed with by default (RFC 9449 §4.2: never `none` or a MAC). */
export const DEFAULT_DPOP_ALGORITHMS: readonly string[] = ['ES256', 'ES384', 'ES512', 'EdDSA', 'PS256', 'PS384', 'PS512', 'RS256'];

/**
 * A proof the resource server refuses: `invalid_dpop_proof`, `use_dpop_nonce` when it must carry a fresh
 * server nonce, or `invalid_token` when it is signed with another key than the token is bound to.
 */
export class DpopProofError extends Error {
  constructor(
    readonly code: 'invalid_dpop_proof' | 'use_dpop_nonce' | 'invalid_token',
    readonly description: string,
  ) {
    super(description);
    this.name = 'DpopProofError';
  }
}

/** What a proof is checked against: the request as its client addressed it, and the token it goes with. */
export interface ProofTarget {
  /** The request's method (the proof's `htm`). */
  readonly method: string;
  /** The URL the client sent the request to, as the public sees the server (the proof's `htu`). */
  readonly url: string;
  /** The access token the proof must name (its `ath`), when one goes with it. */
  readonly accessToken?: string;
  /** The thumbprint of the key that token is bound to (its `cnf.jkt`): the proof must be signed with that key. */
  readonly boundTo?: string;
}

/** Settings of a ProofChecker, defaults applied. */
export interface ProofCheckerSettings {
  readonly algorithms: readonly string[];
  /** How old a proof's `iat` may be, in seconds. */
  readonly maxAgeSec: number;
  /** How far in the future a proof's `iat` may be (the client's clock), in seconds. */
  readonly clockToleranceSec: number;
  /** How long a server nonce is good for, in seconds; 0 when nonces are not required. */
  readonly nonceLifetimeSec: number;
}

/** A checked proof: the thumbprint of its key (RFC 7638, what a bound token's `cnf.jkt` names). */
export interface CheckedProof {
  readonly jkt: string;
  /** A nonce to send back (`DPoP-Nonce`) because the one the proof carries is getting old. */
  readonly freshNonce?: string;
}

/** Private members of a JWK: a proof's key must carry none (RFC 9449 §4.3 check 7). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

let loaded: typeof Jose | undefined;
/** jose, loaded with the first proof: the HTTP transport imports this module, and a server without DPoP never needs it. */
function jose(): typeof Jose {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require('jose') as typeof Jose);
}

/**
 * Checks DPoP proofs (RFC 9449 §4.3) with jose: the `typ`, an allowed asymmetric `alg`, a public `jwk`
 * in the header that verifies the signature, `htm` and `htu` matching the request, an `iat` within the
 * window, `ath` the hash of the token, a server nonce when required, and a `jti` not seen before within
 * the window (on any instance sharing the store). Server nonces are stateless: the time they were made
 * and an HMAC of it under the store's key.
 */
export class ProofChecker {
  constructor(
    private readonly settings: ProofCheckerSettings,
    private readonly store: DpopStore,
  ) {}

  get algorithms(): readonly string[] {
    return this.settings.algorithms;
  }

  async check(proof: string, target: ProofTarget): Promise<CheckedProof> {
    const { errors, jwtVerify, EmbeddedJWK, calculateJwkThumbprint } = jose();
    const { algorithms, maxAgeSec, clockToleranceSec } = this.settings;
    let header: Jose.JWTHeaderParameters;
    let claims: Jose.JWTPayload;
    try {
      ({ payload: claims, protectedHeader: header } = await jwtVerify(proof, (h, t) => EmbeddedJWK(publicOnly(h), t), {
        typ: 'dpop+jwt',
        algorithms: [...algorithms],
        maxTokenAge: maxAgeSec,
        clockTolerance: clockToleranceSec,
        requiredClaims: ['iat', 'jti', 'htm', 'htu'],
      }));
    } catch (error) {
      throw new DpopProofError('invalid_dpop_proof', describe(error, errors));
    }
    if (claims.htm !== target.method) throw new DpopProofError('invalid_dpop_proof', 'The proof is for another method (htm)');
    if (typeof claims.htu !== 'string' || !sameTarget(claims.htu, target.url))
      throw new DpopProofError('invalid_dpop_proof', 'The proof is for another URL (htu)');
    if (typeof claims.jti !== 'string' || claims.jti.length === 0 || claims.jti.length > 256)
      throw new DpopProofError('invalid_dpop_proof', 'The proof has no usable jti');
    if (target.accessToken !== undefined && claims.ath !== tokenDigest(target.accessToken))
      throw new DpopProofError('invalid_dpop_proof', 'The proof is for another access token (ath)');
    const jkt = await calculateJwkThumbprint(header.jwk as Jose.JWK, 'sha256');
    if (target.boundTo !== undefined && jkt !== target.boundTo)
      throw new DpopProofError('invalid_token', 'The proof is signed with another key than the token is bound to');
    const freshNonce = await this.checkNonce(claims.nonce);
    // Last, so that proofs refused for anything else never take room in the store. Kept as long as the proof
    // could be accepted: an iat up to the tolerance ahead, then maxAge and the tolerance again.
    const fresh = await this.store.firstUse(tokenDigest(`${jkt}.${claims.jti}`), (maxAgeSec + 2 * clockToleranceSec) * 1000);
    if (!fresh) throw new DpopProofError('invalid_dpop_proof', 'The proof was used before (jti)');
    return { jkt, freshNonce };
  }

  /** A new server nonce; undefined when nonces are off. */
  async nonce(): Promise<string | undefined> {
    if (this.settings.nonceLifetimeSec === 0) return undefined;
    const issued = Math.floor(Date.now() / 1000).toString(36);
    return `${issued}.${await this.mac(issued)}`;
  }

  /** Refuses a proof without a valid nonce when they are required; offers a new one past half a nonce's life. */
  private async checkNonce(nonce: unknown): Promise<string | undefined> {
    const lifetime = this.settings.nonceLifetimeSec;
    if (lifetime === 0) return undefined;
    if (typeof nonce !== 'string') throw new DpopProofError('use_dpop_nonce', 'The proof must carry a nonce from this server');
    const [issued, mac] = nonce.split('.');
    const age = Math.floor(Date.now() / 1000) - parseInt(issued, 36);
    const expected = issued !== undefined && mac !== undefined ? Buffer.from(await this.mac(issued)) : undefined;
    const valid = expected !== undefined && expected.length === Buffer.byteLength(mac) && timingSafeEqual(expected, Buffer.from(mac));
    if (!valid || !(age >= -this.settings.clockToleranceSec && age <= lifetime))
      throw new DpopProofError('use_dpop_nonce', 'The proof carries a nonce this server did not give or that expired');
    return age > lifetime / 2 ? this.nonce() : undefined;
  }

  private async mac(issued: string): Promise<string> {
    return createHmac('sha256', await this.store.nonceKey())
      .update(`dpop-nonce.${issued}`)
      .digest('base64url')
      .slice(0, 22);
  }
}

/** The header, refused before any import when its key carries private members. */
function publicOnly(header: Jose.JWSHeaderParameters): Jose.JWSHeaderParameters {
  const jwk = header.jwk as Record<string, unknown> | undefined;
  if (jwk && typeof jwk === 'object' && PRIVATE_MEMBERS.some((m) => m in jwk))
    throw new DpopProofError('invalid_dpop_proof', "The proof's jwk must be a public key");
  return header;
}

/** `htu` against the request's URL, both without query and fragment, compared as parsed URLs (RFC 9449 §4.3 check 9). */
function sameTarget(htu: string, url: string): boolean {
  if (!URL.canParse(htu)) return false;
  const a = new URL(htu);
  const b = new URL(url);
  a.search = a.hash = b.search = b.hash = '';
  return a.href === b.href;
}

/** A short, client-safe reason jose refused a proof. */
function describe(error: unknown, errors: typeof Jose.errors): string {
  if (error instanceof DpopProofError) return error.description;
  if (error instanceof errors.JWTExpired) return 'The proof is too old (iat)';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'typ') return 'The proof is not a DPoP proof (its typ is not dpop+jwt)';
    if (error.reason === 'missing') return `The proof has no ${error.claim}`;
    if (error.claim === 'iat') return 'The proof is not valid yet (iat)';
    return `The proof has no usable ${error.claim}`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "The proof's signing algorithm is not accepted";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "The proof's signature does not verify with its jwk";
  return 'The proof is malformed';
}

/** A proof checker for `options` (`auth.dpop`, or the OAuth proxy's `dpop`), its defaults applied. */
export function proofChecker(options: Omit<DpopOptions, 'mode'>, store: DpopStore): ProofChecker {
  const algorithms = [...(options.algorithms ?? DEFAULT_DPOP_ALGORITHMS)];
  const refused = algorithms.filter((a) => a === 'none' || /^HS/i.test(a));
  if (refused.length > 0 || algorithms.length === 0)
    throw new AuthConfigurationError(`dpop.algorithms must name asymmetric algorithms (refused: ${refused.join(', ') || 'none given'})`);
  const nonce = options.nonce;
  return new ProofChecker(
    {
      algorithms,
      maxAgeSec: options.maxAgeSec ?? 300,
      clockToleranceSec: options.clockToleranceSec ?? 5,
      nonceLifetimeSec: nonce ? ((typeof nonce === 'object' ? nonce.lifetimeSec : undefined) ?? 300) : 0,
    },
    store,
  );
}
