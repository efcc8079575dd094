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

/** A remedy a client can act on after a refusal (SEP-2643 `remediationHints`): a `type`, and members that type defines. */
export interface RemediationHint {
  readonly type: string;
  readonly [member: string]: unknown;
}

/** What a refusal says beyond its message and scopes (see ForbiddenError). */
export interface ForbiddenOptions {
  /**
   * The caller must authenticate again, more strongly (RFC 9470 step-up): answered over HTTP with 401
   * `insufficient_user_authentication` naming `acr_values` and `max_age`.
   */
  readonly stepUp?: { readonly acrValues?: readonly string[]; readonly maxAge?: number };
  /** Remedies the client can act on, carried by structured denials (SEP-2643) when the application turns them on. */
  readonly hints?: readonly RemediationHint[];
  /** Whether a credential got through the remedy replaces the client's (default) or is kept beside it (SEP-2643). */
  readonly credentialDisposition?: 'replacement' | 'additional';
}

/**
 * The caller is authenticated but may not use this operation: it lacks `requiredScopes` (every scope
 * the operation needs, so the client can step up with their union) or a guard refused it. Over HTTP,
 * before anything of the response was sent, it is a 403 with `error="insufficient_scope"` (a 401
 * `insufficient_user_authentication` for a step-up); otherwise a JSON-RPC error with FORBIDDEN_CODE.
 */
export class ForbiddenError extends McpError {
  constructor(
    message: string,
    readonly requiredScopes: readonly string[] = [],
    readonly options: ForbiddenOptions = {},
  ) {
    if (options.stepUp) checkStepUp(options.stepUp);
    super(FORBIDDEN_CODE, message, refusalData(requiredScopes, options));
    this.name = 'ForbiddenError';
  }
}

/** Throws where the refusal is made, rather than fail later while its challenge is written. */
function checkStepUp({ acrValues, maxAge }: NonNullable<ForbiddenOptions['stepUp']>): void {
  if (acrValues !== undefined && !(Array.isArray(acrValues) && acrValues.every((v) => typeof v === 'string')))
    throw new TypeError('ForbiddenError: stepUp.acrValues must be an array of strings');
  if (maxAge !== undefined && !(Number.isSafeInteger(maxAge) && maxAge >= 0))
    throw new TypeError('ForbiddenError: stepUp.maxAge must be a whole number of seconds, 0 or more');
}

function refusalData(requiredScopes: readonly string[], options: ForbiddenOptions): Record<string, unknown> | undefined {
  const data = {
    ...(requiredScopes.length > 0 ? { requiredScopes } : {}),
    ...(options.stepUp ? { stepUp: options.stepUp } : {}),
  };
  return Object.keys(data).length > 0 ? data : undefined;
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
