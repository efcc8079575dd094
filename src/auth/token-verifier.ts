import type { AuthInfo } from '../context/mcp-context';

/** What a verifier is told about the request besides the token. */
export interface VerifyContext {
  /** The protected resource's canonical URL: tokens must be issued for it (RFC 8707 audience). */
  readonly resource: string;
}

/**
 * Turns a bearer token into verified AuthInfo, or throws `InvalidTokenError` (answered 401 with
 * `error="invalid_token"`). mcpkit ships a JWT/JWKS verifier, an RFC 7662 introspection verifier and
 * a static-token verifier; implement this for anything else.
 */
export interface TokenVerifier {
  verify(token: string, context: VerifyContext): Promise<AuthInfo>;
  /**
   * How long the resource server may reuse an answer of `verify` for the same token, in ms (never past
   * the AuthInfo's `expiresAt`; answers without one are not reused). Leave it out, or 0, to be asked on
   * every request: a verifier that checks revocation per request wants that.
   */
  readonly cacheTtlMs?: number;
}
