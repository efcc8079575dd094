import { McpError } from '../mcp/mcp.error';

/** The JSON-RPC code of an authorization failure seen inside a stream or over stdio (a server-defined code). */
export const FORBIDDEN_CODE = -32003;

/** A bearer token that is missing its mark: expired, wrong audience or issuer, bad signature, inactive. */
export class InvalidTokenError extends Error {
  constructor(readonly description: string) {
    super(description);
    this.name = 'InvalidTokenError';
  }
}

/**
 * The caller is authenticated but may not use this operation: it lacks `requiredScopes` (every scope
 * the operation needs, so the client can step up with their union) or a guard refused it. Over HTTP,
 * before anything of the response was sent, it is a 403 with `error="insufficient_scope"`; otherwise
 * a JSON-RPC error with FORBIDDEN_CODE.
 */
export class ForbiddenError extends McpError {
  constructor(
    message: string,
    readonly requiredScopes: readonly string[] = [],
  ) {
    super(FORBIDDEN_CODE, message, requiredScopes.length > 0 ? { requiredScopes } : undefined);
    this.name = 'ForbiddenError';
  }
}

/**
 * The authorization server could not answer about a token: unreachable, timed out, or answering
 * something that is not a valid answer (a 5xx, a body that is not JSON). A fault of the deployment,
 * not of the client's token: answered 503, and logged once per outage. Throw it from a custom
 * TokenVerifier for the same treatment.
 */
export class AuthorizationServerError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthorizationServerError';
  }
}
