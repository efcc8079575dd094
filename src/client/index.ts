/**
 * `mcpkit/client`: calling MCP servers of any era. `McpClient`, and the transports it (and
 * `app.proxy`) connects with, made by their factory functions; the transport classes are exported as
 * types only, for their extra members (`stderrTail`, `pid`...).
 *
 * @module mcpkit/client
 */
export { McpClient } from './mcp-client';
export type { McpClientOptions, NotificationHandler, InitializeResult } from './mcp-client';
export type { ClientEra, ServerDescription } from './per-request-session';
export type { InboundRequestHandler, InboundRequestContext } from './inbound-requests';
export type { RequestOptions, Progress } from './outbound-requests';
export { REQUEST_TIMEOUT, CONNECTION_CLOSED } from './outbound-requests';
export type { McpClientTransport, ClientMessage, MessageExtra, SendOptions } from './client-transport';
export { CLIENT_PROTOCOL_VERSIONS } from './client-transport';
export { SkillsClient, SkillVerificationError } from './skills-client';
export type { SkillFile, SkillVerificationReason } from './skills-client';
export { stdioClientTransport } from './stdio-client.transport';
export type { StdioClientTransport, StdioClientOptions } from './stdio-client.transport';
export { streamableHttpClientTransport } from './streamable-http-client.transport';
export type { StreamableHttpClientTransport, StreamableHttpClientOptions } from './streamable-http-client.transport';
export { sseClientTransport } from './sse-client.transport';
export type { SseClientTransport, SseClientOptions } from './sse-client.transport';
