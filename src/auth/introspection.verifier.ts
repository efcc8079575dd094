import { createHash } from 'node:crypto';
import type { AuthInfo } from '../context/mcp-context';
import { InvalidTokenError } from './auth.errors';
import { authInfoFromClaims } from './auth-info-from-claims';
import type { TokenVerifier, VerifyContext } from './token-verifier';

/** Options of IntrospectionVerifier. */
export interface IntrospectionVerifierOptions {
  /** The authorization server's introspection endpoint (RFC 7662). */
  endpoint: string | URL;
  /** This resource server's client credentials at the authorization server (HTTP Basic). */
  clientId: string;
  clientSecret: string;
  /** When set, an answer's `iss` (if present) must equal it. */
  issuer?: string;
  /**
   * Check that the answer's `aud` names the protected resource (RFC 8707; default true). An answer
   * without `aud` is then refused: turn this off only for a server that never sends it.
   */
  checkAudience?: boolean;
  /** How long an active answer is reused, in ms (default 60 000; 0 disables); never past the token's `exp`. */
  cacheTtlMs?: number;
  /** Most answers kept (default 10 000; the oldest go first). */
  cacheMaxEntries?: number;
  /** Timeout of an introspection request, in ms (default 5 000). */
  timeoutMs?: number;
}

/**
 * Asks the authorization server whether a token is active (RFC 7662). Answers are cached under the
 * SHA-256 of the token (the token itself is not kept) for at most min(cacheTtlMs, the token's exp).
 */
export class IntrospectionVerifier implements TokenVerifier {
  private readonly cache = new Map<string, { auth: AuthInfo; until: number }>();
  private readonly authorization: string;

  constructor(private readonly options: IntrospectionVerifierOptions) {
    // RFC 6749 §2.3.1: both parts are form-urlencoded before Basic encoding.
    const id = encodeURIComponent(options.clientId);
    const secret = encodeURIComponent(options.clientSecret);
    this.authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  }

  async verify(token: string, context: VerifyContext): Promise<AuthInfo> {
    const key = createHash('sha256').update(token).digest('base64url');
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return cached.auth;
    if (cached) this.cache.delete(key);
    const answer = await this.introspect(token);
    if (answer.active !== true) throw new InvalidTokenError('The token is not active');
    const now = Math.floor(Date.now() / 1000);
    if (typeof answer.exp === 'number' && answer.exp <= now) throw new InvalidTokenError('The token expired');
    if (typeof answer.nbf === 'number' && answer.nbf > now + 5) throw new InvalidTokenError('The token is not valid yet');
    if (this.options.issuer && answer.iss !== undefined && answer.iss !== this.options.issuer) {
      throw new InvalidTokenError('The token was not issued by a trusted authorization server');
    }
    if (this.options.checkAudience !== false) {
      const aud = Array.isArray(answer.aud) ? answer.aud : [answer.aud];
      if (!aud.includes(context.resource)) throw new InvalidTokenError('The token was not issued for this resource');
    }
    const auth = authInfoFromClaims(answer);
    this.remember(key, auth);
    return auth;
  }

  private async introspect(token: string): Promise<Record<string, unknown>> {
    const response = await fetch(this.options.endpoint, {
      method: 'POST',
      headers: { Authorization: this.authorization, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
    });
    // A refusal of our own credentials or a broken server is a fault of this deployment, not of the client's token.
    if (!response.ok) throw new Error(`Token introspection answered HTTP ${response.status}`);
    const body: unknown = await response.json();
    if (typeof body !== 'object' || body === null) throw new Error('Token introspection answered something other than a JSON object');
    return body as Record<string, unknown>;
  }

  private remember(key: string, auth: AuthInfo): void {
    const ttl = this.options.cacheTtlMs ?? 60_000;
    if (ttl <= 0) return;
    const until = Math.min(Date.now() + ttl, auth.expiresAt !== undefined ? auth.expiresAt * 1000 : Infinity);
    if (until <= Date.now()) return;
    const max = this.options.cacheMaxEntries ?? 10_000;
    while (this.cache.size >= max) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { auth, until });
  }
}
