import { ErrorCode } from '../../mcp/json-rpc';
import { McpError, mcpErrorOf } from '../../mcp/mcp.error';
import type { HandlerRef } from '../../registry/descriptors';
import { hostileShape } from '../../validation/validate-input';
import type { CallStep } from './stages';

/** The validate stage of a custom method: params that break what reads them (nesting past 64 levels, prototype keys) never reach it. */
export const methodValidateStep: CallStep = (call, next) => {
  const hostile = hostileShape(call.arguments);
  return hostile ? Promise.reject(McpError.invalidParams(`Invalid params: ${hostile}`)) : next();
};

/**
 * The result stage of a custom method: an McpError (or an error that maps to one) is the request's
 * answer; anything else it throws, or a result that is not an object, is logged and answered -32603.
 */
export function methodResultStep(ref: HandlerRef, logError: (message: string, error?: unknown) => void): CallStep {
  return async (_call, next) => {
    let result: unknown;
    try {
      result = await next();
    } catch (error) {
      const mapped = mcpErrorOf(error);
      if (mapped) throw mapped;
      logError(`Method "${ref.method}" failed`, error);
      throw new McpError(ErrorCode.InternalError, 'Internal error');
    }
    if (typeof result !== 'object' || result === null || Array.isArray(result)) {
      logError(
        `Method "${ref.method}" returned ${result === null ? 'null' : Array.isArray(result) ? 'an array' : typeof result}; a result must be an object`,
      );
      throw new McpError(ErrorCode.InternalError, 'Internal error');
    }
    return result;
  };
}
