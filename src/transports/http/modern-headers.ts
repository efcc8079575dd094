import { EraSupport, isEnveloped, isModernVersion, metaOf, MetaKey, ModernErrorCode } from '../../mcp/eras';
import { ErrorCode, JsonRpcMessage, JsonRpcRequest } from '../../mcp/json-rpc';
import { McpError, mcpErrorOf } from '../../mcp/mcp.error';
import { legacyInitialize, readEnvelope } from '../../protocol/modern/envelope';
import { echo } from '../../protocol/wire';
import { decodeHeaderValue } from '../../schema/mcp-header';
import type { IncomingHttpHeaders } from 'node:http';
import type { PeerState } from '../../protocol/peer';

/** The methods whose `Mcp-Name` header mirrors `params.name` (or `params.uri` for resources/read). */
const NAMED: Record<string, 'name' | 'uri' | 'taskId'> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/**
 * True when a POSTed message belongs to the modern era: its body carries the per-request envelope, or
 * its MCP-Protocol-Version header names a modern revision. A server serving only the modern era takes
 * every message as modern; one serving only the legacy era none.
 */
export function isModernPost(message: JsonRpcMessage, header: string | undefined, support: EraSupport): boolean {
  if (support === 'legacy') return false;
  if (support === 'modern') return true;
  return isModernVersion(header) || isEnveloped(message);
}

/**
 * The checks of a modern POST before its method is served, in the spec's order: the
 * MCP-Protocol-Version header (-32020 when missing), the `_meta` fields (-32602), header/body version
 * agreement (-32020), the version itself (-32022), then Mcp-Method and Mcp-Name (-32020). Returns the
 * McpError to answer with HTTP 400, or the request's PeerState (its envelope, read once) when it may be
 * dispatched.
 */
export function checkModernHeaders(headers: IncomingHttpHeaders, request: JsonRpcRequest, support: EraSupport): McpError | PeerState {
  // A legacy client of a modern-only server: name the versions it could use.
  if (request.method === 'initialize' && !isEnveloped(request)) return legacyInitialize(request, support);
  const header = single(headers['mcp-protocol-version']);
  if (!header) return mismatch('the MCP-Protocol-Version header is required');
  let peer: PeerState;
  try {
    peer = readEnvelope(request, support);
  } catch (error) {
    const e = mcpErrorOf(error)!;
    if (e.code !== ModernErrorCode.UnsupportedProtocolVersion) return e;
    const body = metaOf(request)?.[MetaKey.protocolVersion];
    if (body !== header) return mismatch(`MCP-Protocol-Version header ${quote(header)} does not match _meta protocolVersion ${quote(String(body))}`);
    return e;
  }
  const body = metaOf(request)?.[MetaKey.protocolVersion];
  if (body !== header) return mismatch(`MCP-Protocol-Version header ${quote(header)} does not match _meta protocolVersion ${quote(String(body))}`);
  const method = single(headers['mcp-method']);
  if (!method) return mismatch('the Mcp-Method header is required');
  if (method !== request.method) return mismatch(`Mcp-Method header ${quote(method)} does not match the body's method ${quote(request.method)}`);
  const field = NAMED[request.method];
  if (field) {
    const raw = single(headers['mcp-name']);
    if (!raw) return mismatch(`the Mcp-Name header is required for ${request.method}`);
    const name = decodeHeaderValue(raw);
    if (name === undefined) return mismatch('the Mcp-Name header is not a valid =?base64?…?= value');
    const value = request.params?.[field];
    if (name !== value) return mismatch(`Mcp-Name header ${quote(name)} does not match params.${field} ${quote(typeof value === 'string' ? value : String(echo(value)))}`);
  }
  return peer;
}

/** A header's value ('' when absent; repeated ones joined as Node joins them). */
function single(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

/** The HTTP status of a modern JSON-RPC error answered as plain JSON. */
export function modernStatus(code: number): number {
  if (code === ErrorCode.MethodNotFound) return 404;
  if (code === ModernErrorCode.HeaderMismatch || code === ModernErrorCode.MissingRequiredClientCapability || code === ModernErrorCode.UnsupportedProtocolVersion) return 400;
  return 200;
}

/** Header values use the `=?base64?…?=` sentinel where they cannot be plain ASCII (Mcp-Name, Mcp-Param-*). */
export { decodeHeaderValue };

function mismatch(why: string): McpError {
  return new McpError(ModernErrorCode.HeaderMismatch, `Header mismatch: ${why}`);
}

function quote(value: string): string {
  return JSON.stringify(echo(value));
}
