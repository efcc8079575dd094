import { PerRequestErrorCode } from '../../mcp/eras';
import { ErrorCode } from '../../mcp/json-rpc';

/** The HTTP status of a per-request JSON-RPC error answered as plain JSON. */
export function perRequestStatus(code: number): number {
  if (code === ErrorCode.MethodNotFound) return 404;
  if (
    code === PerRequestErrorCode.HeaderMismatch ||
    code === PerRequestErrorCode.MissingRequiredClientCapability ||
    code === PerRequestErrorCode.UnsupportedProtocolVersion
  )
    return 400;
  return 200;
}
