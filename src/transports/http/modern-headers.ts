import { ModernErrorCode } from '../../mcp/eras';
import { ErrorCode } from '../../mcp/json-rpc';

/** The HTTP status of a modern JSON-RPC error answered as plain JSON. */
export function modernStatus(code: number): number {
  if (code === ErrorCode.MethodNotFound) return 404;
  if (
    code === ModernErrorCode.HeaderMismatch ||
    code === ModernErrorCode.MissingRequiredClientCapability ||
    code === ModernErrorCode.UnsupportedProtocolVersion
  )
    return 400;
  return 200;
}
