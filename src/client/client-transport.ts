import type { RequestId } from '../mcp/json-rpc';

/** Any JSON-RPC 2.0 message, loosely typed so that other libraries' message types fit. */
export type ClientMessage = { jsonrpc: '2.0' } & { [key: string]: unknown };

/** What a transport may say about a message it delivers. */
export interface MessageExtra {
  /** The id of the client request whose response stream carried this message (Streamable HTTP). */
  relatedRequestId?: RequestId;
  /** What other transports add (the SDK's say `authInfo`); not read. */
  [other: string]: unknown;
}

/** What a sender may say about a message it sends. */
export interface SendOptions {
  /** The inbound request this message answers or belongs to. */
  relatedRequestId?: RequestId;
  /** HTTP headers of this message (Streamable HTTP: `Mcp-Param-*` of a 2026-07-28 tools/call). */
  headers?: Record<string, string>;
}

/**
 * The client side of a connection. Its shape is the official TypeScript SDK's `Transport`, so the
 * SDK's StdioClientTransport, StreamableHTTPClientTransport and SSEClientTransport fit as they are,
 * as do mcpkit's own `stdioClientTransport` and `streamableHttpClientTransport`.
 */
export interface McpClientTransport {
  // Method syntax on purpose: parameters then compare bivariantly, so transports typed with the SDK's
  // stricter JSONRPCMessage fit.
  onmessage?(message: ClientMessage, extra?: MessageExtra): void;
  onclose?(): void;
  onerror?(error: Error): void;
  sessionId?: string;
  /** Called by the client once initialize agreed on a version (HTTP sends it as MCP-Protocol-Version). */
  setProtocolVersion?(version: string): void;
  start(): Promise<void>;
  /**
   * The client passes a ClientMessage and SendOptions. Typed `any` on purpose: the SDK's transports
   * declare narrower unions (JSONRPCMessage | JSONRPCMessage[], their own option bag) that no common
   * type both accepts and is accepted by.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  send(message: any, options?: any): Promise<void>;
  close(): Promise<void>;
}

/** Protocol versions the client accepts from a server's initialize answer. */
export const CLIENT_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
/** The version the client asks for. */
export const CLIENT_LATEST_VERSION = '2025-11-25';

/** An object is a plausible JSON-RPC 2.0 message (the transport hands on anything else as an error). */
export function isClientMessage(value: unknown): value is ClientMessage {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';
}

/** An Error for anything thrown, keeping an Error (of any realm: fetch's TypeError may come from another) as it is. */
export function asError(error: unknown): Error {
  if (error instanceof Error || isErrorLike(error)) return error;
  return new Error(String(error));
}

function isErrorLike(value: unknown): value is Error {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string' &&
    typeof (value as { name?: unknown }).name === 'string'
  );
}

/** An error's message with its cause's (fetch says only "fetch failed"; the cause says ECONNREFUSED). */
export function describeError(error: unknown): string {
  const e = asError(error);
  const cause = e.cause === undefined ? undefined : asError(e.cause).message;
  return cause ? `${e.message} (${cause})` : e.message;
}

/** Tells a transport's onerror; an error handler that throws must not take the transport down. */
export function reportError(transport: Pick<McpClientTransport, 'onerror'>, error: Error): void {
  try {
    transport.onerror?.(error);
  } catch {
    // nothing left to tell
  }
}

/** Hands a message to a transport's onmessage; what that throws goes to onerror (see reportError). */
export function deliverMessage(
  transport: Pick<McpClientTransport, 'onmessage' | 'onerror'>,
  message: ClientMessage,
  extra?: MessageExtra,
): void {
  try {
    transport.onmessage?.(message, extra);
  } catch (error) {
    reportError(transport, asError(error));
  }
}
