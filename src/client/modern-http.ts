import { isModernVersion, MetaKey, metaOf } from '../mcp/eras';
import type { JsonRpcMessage } from '../mcp/json-rpc';
import type { ClientMessage } from './client-transport';

/** The param each method's `Mcp-Name` header mirrors. */
const NAMED: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri', 'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId' };

/** True when HTTP messages are exchanged in the 2026-07-28 era (per request, no session). */
export function isModernHttp(protocolVersion: string | undefined): boolean {
  return isModernVersion(protocolVersion);
}

/**
 * The headers of a 2026-07-28 request, read from its envelope (so server/discover has them before any
 * version is agreed): MCP-Protocol-Version, `Mcp-Method`, and `Mcp-Name` for the methods that name
 * something (a value that is not plain visible ASCII goes as `=?base64?…?=`). None for other messages.
 */
export function modernRequestHeaders(message: ClientMessage): Record<string, string> {
  if (typeof message.method !== 'string' || message.id === undefined) return {};
  const version = metaOf(message as unknown as JsonRpcMessage)?.[MetaKey.protocolVersion];
  if (typeof version !== 'string' || !isModernVersion(version)) return {};
  const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': message.method };
  const field = NAMED[message.method];
  const value = field ? (message.params as Record<string, unknown> | undefined)?.[field] : undefined;
  if (typeof value === 'string') headers['mcp-name'] = /^[\x21-\x7e]*$/.test(value) ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
  return headers;
}
