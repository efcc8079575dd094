import { type EraSupport, MetaKey, PerRequestErrorCode, isPerRequestVersion, supportedVersions } from '../../mcp/eras';
import type { JsonRpcRequest } from '../../mcp/json-rpc';
import { McpError } from '../../mcp/mcp.error';
import { LOGGING_LEVELS, type ClientCapabilities, type Implementation, type LoggingLevel } from '../../mcp/mcp-types';
import type { PeerState } from '../peer';
import { echo } from '../wire';

/** The methods of the per-request era's core; everything else (initialize, ping, logging/setLevel…) is unknown there. */
export const PER_REQUEST_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'subscriptions/listen',
]);

/** The methods that may answer with an InputRequiredResult (multi round-trip requests). */
export const MRTR_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/**
 * Reads the per-request envelope of a per-request-era request, in the order of the spec's checks: the required
 * `_meta` fields (-32602), then the version (-32022 naming the versions served). Returns the request's
 * PeerState; throws the McpError to answer with.
 */
export function readEnvelope(request: JsonRpcRequest, support: EraSupport): PeerState {
  const params = request.params;
  const meta = params?._meta;
  if (request.method === 'initialize' && (typeof meta !== 'object' || meta === null)) throw handshakeInitialize(request, support);
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    throw McpError.invalidParams(
      'Invalid params: a 2026-07-28 request carries params._meta with its protocolVersion and clientCapabilities',
    );
  }
  const m = meta as Record<string, unknown>;
  const protocolVersion = m[MetaKey.protocolVersion];
  if (typeof protocolVersion !== 'string')
    throw McpError.invalidParams(`Invalid params: _meta["${MetaKey.protocolVersion}"] must be a string`);
  const caps = m[MetaKey.clientCapabilities];
  if (typeof caps !== 'object' || caps === null || Array.isArray(caps)) {
    throw McpError.invalidParams(`Invalid params: _meta["${MetaKey.clientCapabilities}"] must be an object`);
  }
  checkVersion(protocolVersion, support);
  const info = m[MetaKey.clientInfo];
  if (info !== undefined && (typeof info !== 'object' || info === null || Array.isArray(info))) {
    throw McpError.invalidParams(`Invalid params: _meta["${MetaKey.clientInfo}"] must be an object`);
  }
  const level = m[MetaKey.logLevel];
  if (level !== undefined && !LOGGING_LEVELS.includes(level as LoggingLevel)) {
    throw McpError.invalidParams(`Invalid params: _meta["${MetaKey.logLevel}"] is not a logging level: ${JSON.stringify(echo(level))}`, {
      levels: LOGGING_LEVELS,
    });
  }
  return {
    protocolVersion,
    clientCapabilities: caps as ClientCapabilities,
    clientInfo: info as Implementation | undefined,
    logLevel: level as LoggingLevel | undefined,
    perRequest: true,
  };
}

/** Throws -32022 when this server does not serve `requested` as a per-request revision. */
export function checkVersion(requested: string, support: EraSupport): void {
  if (support !== 'handshake' && isPerRequestVersion(requested)) return;
  throw new McpError(PerRequestErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
    supported: supportedVersions(support),
    requested: echo(requested),
  });
}

/**
 * The answer to a handshake client's `initialize` where only the per-request era is served: -32022 naming the
 * versions this server speaks (a handshake client has no other way to learn why it cannot connect).
 */
export function handshakeInitialize(request: JsonRpcRequest, support: EraSupport): McpError {
  const requested = request.params?.protocolVersion;
  return new McpError(
    PerRequestErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version: this server serves ${supportedVersions(support).join(', ')}`,
    {
      supported: supportedVersions(support),
      requested: echo(requested),
    },
  );
}

/** -32021: the request needs client capabilities its `_meta` did not declare. */
export function missingCapability(requiredCapabilities: Record<string, unknown>, what: string): McpError {
  return new McpError(PerRequestErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${what}`, {
    requiredCapabilities,
  });
}
