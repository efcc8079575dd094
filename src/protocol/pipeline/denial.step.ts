import { randomBytes } from 'node:crypto';
import { FORBIDDEN_CODE, ForbiddenError, type RemediationHint } from '../../auth/auth.errors';
import { McpError } from '../../mcp/mcp.error';
import type { CallStep } from './stages';

/**
 * The denials stage (SEP-2643, a draft; on with the `structuredDenials` option): a refusal of any step
 * after it (a missing scope, a guard, the handler's own ForbiddenError) leaves with an `authorization`
 * envelope in its error data: the reason, a correlation handle the client echoes on its retry, and the
 * remedies the refusal named. The error stays what it was (FORBIDDEN_CODE, its message, `requiredScopes`),
 * so over HTTP it is still the 401 or 403 whose challenge drives the client.
 */
export const denialStep: CallStep = async (_call, next) => {
  try {
    return await next();
  } catch (error) {
    if (error instanceof ForbiddenError) throw withEnvelope(error);
    throw error;
  }
};

function withEnvelope(error: ForbiddenError): McpError {
  const { stepUp, hints = [], credentialDisposition } = error.options;
  const remedies: RemediationHint[] = [...hints];
  // RFC 9470's remedy, as a hint too: over stdio nothing else says it.
  if (stepUp)
    remedies.push({
      type: 'step_up',
      ...(stepUp.acrValues ? { acr_values: stepUp.acrValues.join(' ') } : {}),
      ...(stepUp.maxAge !== undefined ? { max_age: stepUp.maxAge } : {}),
    });
  const authorization = {
    reason: 'insufficient_authorization',
    authorizationContextId: `authzctx_${randomBytes(12).toString('base64url')}`,
    ...(credentialDisposition ? { credentialDisposition } : {}),
    ...(remedies.length > 0 ? { remediationHints: remedies } : {}),
  };
  return new McpError(FORBIDDEN_CODE, error.message, { ...(error.data as object | undefined), authorization });
}
