import type { JsonRpcMessage } from './json-rpc';
import { SUPPORTED_PROTOCOL_VERSIONS } from './mcp-types';

/**
 * MCP's two eras, named by how a client states who it is. The handshake era (2025-11-25 and
 * earlier) opens a session with `initialize`; the per-request era (2026-07-28 on) has no handshake:
 * every request carries its version, client capabilities and identity in `_meta`.
 */
export type Era = 'handshake' | 'per-request';

/** Which eras a server serves: both on one endpoint (default), or only one of them. */
export type EraSupport = 'dual' | Era;

/** The per-request revisions mcpkit serves, newest first. */
export const PER_REQUEST_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];

/** The reserved `_meta` keys of the per-request era. */
export const MetaKey = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The error codes the 2026-07-28 revision defines (its reserved range -32020..-32099). */
export const PerRequestErrorCode = {
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/** The identifier of the tasks extension in capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export function isPerRequestVersion(version: string | undefined): boolean {
  return version !== undefined && PER_REQUEST_PROTOCOL_VERSIONS.includes(version);
}

/** The versions a server with this support answers, newest first (the `supported` of -32022). */
export function supportedVersions(support: EraSupport): string[] {
  if (support === 'per-request') return [...PER_REQUEST_PROTOCOL_VERSIONS];
  if (support === 'handshake') return [...SUPPORTED_PROTOCOL_VERSIONS];
  return [...PER_REQUEST_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];
}

/** The request's `params._meta`, when it is an object. */
export function metaOf(message: JsonRpcMessage): Record<string, unknown> | undefined {
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
}

/** True when a message carries the per-request envelope (its `_meta` names a protocol version). */
export function isEnveloped(message: JsonRpcMessage): boolean {
  const meta = metaOf(message);
  return meta !== undefined && meta[MetaKey.protocolVersion] !== undefined;
}
