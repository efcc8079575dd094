import type { AuthInfo } from '../../context/mcp-context';
import type { RequestId } from '../../mcp/json-rpc';
import { McpError } from '../../mcp/mcp.error';
import { ownerOf } from '../../auth/principal';
import type { HttpExchange } from './http-exchange';
import { fail } from './http-replies';
import type { HttpSession } from './http-session';
import type { SessionDirectory } from './session-directory';

/**
 * The session named by the request's Mcp-Session-Id, or undefined after answering 400 (no id), 404
 * (unknown, ended or another principal's) or 503 (store down); `requestId` is the id of the POSTed
 * request these errors answer.
 */
export async function findSession(
  exchange: HttpExchange,
  sessions: SessionDirectory,
  auth: AuthInfo | undefined,
  requestId: RequestId | null = null,
): Promise<HttpSession | undefined> {
  const id = exchange.header('mcp-session-id');
  if (!id) {
    fail(exchange, 400, -32000, 'Bad Request: Mcp-Session-Id header is required', requestId);
    return undefined;
  }
  try {
    const http = await sessions.find(id, auth && ownerOf(auth));
    if (!http) fail(exchange, 404, -32001, 'Session not found', requestId);
    return http;
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    fail(exchange, 503, error.code, error.message, requestId);
    return undefined;
  }
}
