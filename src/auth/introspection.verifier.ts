import type { AuthInfo } from '../context/mcp-context';
import { AuthorizationServerError, InvalidTokenError } from './auth.errors';
import { authInfoFromClaims } from './auth-info-from-claims';
import type { TokenVerifier, VerifyContext } from './token-verifier';

/** Options of IntrospectionVerifier. */
export interface IntrospectionVerifierOptions {
  /** The authorization server's introspection endpoint (RFC 7662). */
  endpoint: string | URL;
  /** This resource server's client credentials at the authorization server (HTTP Basic). */
  clientId: string;
  clientSecret: string;
  /**
   * The authorization server's issuer identifier. When set, an answer's `iss` (if present) must equal
   * it; it also qualifies the principal of answers without `iss` (default: the endpoint's origin).
   */
  issuer?: string;
  /**
   * Check that the answer's `aud` names the protected resource (RFC 8707; default true). An answer
   * without `aud` is then refused: turn this off only for a server that never sends it.
   */
  checkAudience?: boolean;
  /**
   * How long the resource server reuses an active answer for the same token, in ms (default 60 000; 0
   * asks on every request); never past the token's `exp`. This is how late a revocation is seen.
   */
  cacheTtlMs?: number;
  /** Timeout of an introspection request, in ms (default 5 000). */
  timeoutMs?: number;
}

/**
 * The OAuth errors by which an authorization server refuses to answer because of its own client's
 * credentials (RFC 6749 §5.2): a fault of this deployment, not of the caller's token.
 */
const OWN_CREDENTIAL_ERRORS = new Set(['invalid_client', 'unauthorized_client']);

/**
 * Asks the authorization server whether a token is active (RFC 7662). An inactive token, or a 4xx
 * answer about the token (such as `unsupported_token_type`), is InvalidTokenError (401 for the caller);
 * an unreachable server, a 5xx, a refusal of this server's own credentials or an answer that is not an
 * introspection response is AuthorizationServerError (503, logged once per outage).
 */
export class IntrospectionVerifier implements TokenVerifier {
  private readonly authorization: string;
  private readonly issuer: string;
  readonly cacheTtlMs: number;

  constructor(private readonly options: IntrospectionVerifierOptions) {
    // RFC 6749 §2.3.1: both parts are form-urlencoded before Basic encoding.
    const id = encodeURIComponent(options.clientId);
    const secret = encodeURIComponent(options.clientSecret);
    this.authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    this.issuer = options.issuer ?? new URL(options.endpoint).origin;
    this.cacheTtlMs = options.cacheTtlMs ?? 60_000;
  }

  async verify(token: string, context: VerifyContext): Promise<AuthInfo> {
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
    return authInfoFromClaims(answer, this.issuer);
  }

  private async introspect(token: string): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await fetch(this.options.endpoint, {
        method: 'POST',
        headers: { Authorization: this.authorization, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
      });
    } catch (cause) {
      throw new AuthorizationServerError('Token introspection could not reach the authorization server', { cause });
    }
    const body = await response.json().catch(() => undefined);
    const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
    if (response.status >= 400 && response.status < 500 && !isOwnFault(response.status, error)) {
      throw new InvalidTokenError(
        `The authorization server refused the token${typeof error === 'string' ? ` (${error.replace(/[^\x20-\x7E]/g, '').slice(0, 64)})` : ''}`,
      );
    }
    if (!response.ok)
      throw new AuthorizationServerError(
        `Token introspection answered HTTP ${response.status}${typeof error === 'string' ? ` (${error})` : ''}`,
      );
    if (typeof body !== 'object' || body === null || Array.isArray(body) || typeof (body as { active?: unknown }).active !== 'boolean') {
      throw new AuthorizationServerError('Token introspection answered something other than an introspection response');
    }
    return body as Record<string, unknown>;
  }
}

/** 401/403 (this server's credentials), 429 (rate limit) and the credential errors are about this server, not the token. */
function isOwnFault(status: number, error: unknown): boolean {
  return (
    status === 401 ||
    status === 403 ||
    status === 407 ||
    status === 408 ||
    status === 429 ||
    (typeof error === 'string' && OWN_CREDENTIAL_ERRORS.has(error))
  );
}
