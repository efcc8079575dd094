import {
  type Era,
  type EraSupport,
  isEnveloped,
  isPerRequestVersion,
  metaOf,
  MetaKey,
  PerRequestErrorCode,
  supportedVersions,
} from '../mcp/eras';
import { ErrorCode, isRequest, isResponse, type JsonRpcMessage, type JsonRpcRequest } from '../mcp/json-rpc';
import { McpError, mcpErrorOf } from '../mcp/mcp.error';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../mcp/mcp-types';
import { decodeHeaderValue, namedParam } from '../schema/mcp-header';
import { handshakeInitialize, readEnvelope } from './per-request/envelope';
import type { PeerState } from './peer';
import { echo } from './wire';

/**
 * An inbound message, classified: its era, or the error that refuses it before any handler.
 * - `era: 'handshake'`: a 2025-11-25 (or earlier) message, served by its session or statelessly;
 * - `era: 'per-request'` with `peer`: a 2026-07-28 request, its envelope read and checked once;
 * - `era: 'per-request'` with `notification`: a 2026-07-28 notification over HTTP, routed by this version;
 * - `reject`: refused before any handler, answered with this error (HTTP status 400).
 *
 * `pin` is a message transport's era from now on.
 */
export type Inbound =
  | { readonly era: 'handshake'; readonly pin?: 'handshake' }
  | { readonly era: 'per-request'; readonly peer: PeerState; readonly pin?: 'per-request' }
  | { readonly era: 'per-request'; readonly notification: string; readonly pin?: undefined }
  | { readonly reject: McpError };

type Rejected = Extract<Inbound, { reject: McpError }>;
type PerRequest = Extract<Inbound, { peer: PeerState }>;

const HANDSHAKE: Inbound = Object.freeze({ era: 'handshake' });
const PIN_HANDSHAKE: Inbound = Object.freeze({ era: 'handshake', pin: 'handshake' });

/**
 * The one place the era of an inbound message is decided, for every transport: pure, never throws.
 * - Over HTTP: a server serving both eras takes a message as 2026-07-28 when its MCP-Protocol-Version
 *   header names a per-request revision or its body carries the per-request envelope; a per-request-era request's
 *   headers and envelope are then checked in the spec's order (see `checkPerRequestPost`), and a handshake
 *   message naming a version not served is refused.
 * - Over a message transport serving both, the first `initialize` pins the connection to 2025-11-25, and
 *   the first `server/discover` or enveloped request to 2026-07-28; a per-request-era request's envelope is read.
 * Whether the method exists is the dispatcher's business, not this function's.
 */
export function classifyInbound(
  message: JsonRpcMessage,
  facts: {
    /** The eras the server serves. */
    readonly support: EraSupport;
    /**
     * A Streamable HTTP POST: one of its headers ('' when absent). HTTP keeps no memory between
     * messages: each is classified by its own body and headers.
     */
    readonly header?: (name: string) => string;
    /** A message transport (stdio, in-process): its era so far, 'auto' until a message decides it. */
    readonly pinned?: Era | 'auto';
  },
): Inbound {
  return facts.header
    ? classifyPost(message, facts.support, facts.header)
    : classifyMessage(message, facts.support, facts.pinned ?? 'handshake');
}

function classifyPost(message: JsonRpcMessage, support: EraSupport, header: (name: string) => string): Inbound {
  const version = header('mcp-protocol-version');
  const perRequest = support === 'per-request' || (support === 'dual' && (isPerRequestVersion(version) || isEnveloped(message)));
  if (!perRequest) {
    if (version && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return { reject: unsupportedHandshakeVersion(version, support) };
    return HANDSHAKE;
  }
  if (isRequest(message)) return checkPerRequestPost(message, support, header);
  if (isResponse(message)) return { reject: new McpError(ErrorCode.InvalidRequest, 'Bad Request: a 2026-07-28 client sends no responses') };
  // The version the notification is routed by: the header's when it names one served, else the newest.
  return { era: 'per-request', notification: isPerRequestVersion(version) ? version : supportedVersions('per-request')[0] };
}

function classifyMessage(message: JsonRpcMessage, support: EraSupport, pinned: Era | 'auto'): Inbound {
  if (!isRequest(message) || support === 'handshake' || pinned === 'handshake') return HANDSHAKE;
  if (pinned === 'auto') {
    if (message.method === 'initialize') return PIN_HANDSHAKE;
    if (message.method !== 'server/discover' && !isEnveloped(message)) return HANDSHAKE;
  }
  try {
    const peer = readEnvelope(message, support);
    return pinned === 'auto' ? { era: 'per-request', peer, pin: 'per-request' } : { era: 'per-request', peer };
  } catch (error) {
    return { reject: mcpErrorOf(error) ?? new McpError(ErrorCode.InternalError, 'Internal error') };
  }
}

/**
 * The checks of a per-request POST before its method is served, in the spec's order: the
 * MCP-Protocol-Version header (-32020 when missing), the `_meta` fields (-32602), header/body version
 * agreement (-32020), the version itself (-32022), then Mcp-Method and Mcp-Name (-32020).
 */
function checkPerRequestPost(request: JsonRpcRequest, support: EraSupport, header: (name: string) => string): PerRequest | Rejected {
  // A handshake client of a per-request-only server: name the versions it could use.
  if (request.method === 'initialize' && !isEnveloped(request)) return { reject: handshakeInitialize(request, support) };
  const version = header('mcp-protocol-version');
  if (!version) return mismatch('the MCP-Protocol-Version header is required');
  let peer: PeerState;
  try {
    peer = readEnvelope(request, support);
  } catch (error) {
    const e = mcpErrorOf(error) ?? new McpError(ErrorCode.InternalError, 'Internal error');
    // A version not served that the header does not even agree with: the disagreement is reported.
    if (e.code === PerRequestErrorCode.UnsupportedProtocolVersion && metaOf(request)?.[MetaKey.protocolVersion] !== version)
      return versionMismatch(version, request);
    return { reject: e };
  }
  if (peer.protocolVersion !== version) return versionMismatch(version, request);
  const method = header('mcp-method');
  if (!method) return mismatch('the Mcp-Method header is required');
  if (method !== request.method)
    return mismatch(`Mcp-Method header ${quote(method)} does not match the body's method ${quote(request.method)}`);
  const field = namedParam(request.method);
  if (field) {
    const raw = header('mcp-name');
    if (!raw) return mismatch(`the Mcp-Name header is required for ${request.method}`);
    const name = decodeHeaderValue(raw);
    if (name === undefined) return mismatch('the Mcp-Name header is not a valid =?base64?…?= value');
    const value = request.params?.[field];
    if (name !== value)
      return mismatch(
        `Mcp-Name header ${quote(name)} does not match params.${field} ${quote(typeof value === 'string' ? value : String(echo(value)))}`,
      );
  }
  return { era: 'per-request', peer };
}

/** A handshake message naming a version this server does not serve; a server that speaks the per-request era answers in its terms. */
function unsupportedHandshakeVersion(version: string, support: EraSupport): McpError {
  if (support === 'handshake')
    return new McpError(
      -32000,
      `Bad Request: unsupported MCP-Protocol-Version ${echo(version)} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  return new McpError(
    PerRequestErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version: MCP-Protocol-Version ${echo(version)} is not served here`,
    {
      supported: supportedVersions(support),
      requested: echo(version),
    },
  );
}

function versionMismatch(version: string, request: JsonRpcRequest): Rejected {
  return mismatch(
    `MCP-Protocol-Version header ${quote(version)} does not match _meta protocolVersion ${quote(String(metaOf(request)?.[MetaKey.protocolVersion]))}`,
  );
}

function mismatch(why: string): Rejected {
  return { reject: new McpError(PerRequestErrorCode.HeaderMismatch, `Header mismatch: ${why}`) };
}

function quote(value: string): string {
  return JSON.stringify(echo(value));
}
