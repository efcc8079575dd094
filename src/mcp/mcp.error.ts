import { ErrorCode } from './json-rpc';

/**
 * A protocol error: thrown by a handler (or by mcpkit itself) and sent to the client as a JSON-RPC
 * error with this code, message and data.
 */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'McpError';
  }

  static invalidParams(message: string, data?: unknown): McpError {
    return new McpError(ErrorCode.InvalidParams, message, data);
  }

  static methodNotFound(what: string): McpError {
    return new McpError(ErrorCode.MethodNotFound, `Method not found: ${what}`);
  }

  static invalidRequest(message: string): McpError {
    return new McpError(ErrorCode.InvalidRequest, message);
  }

  static resourceNotFound(uri: string): McpError {
    return new McpError(ErrorCode.ResourceNotFound, 'Resource not found', { uri });
  }
}

/** An error that knows the JSON-RPC error a client should get for it (store errors, a user's own classes). */
export interface McpErrorMapping {
  toMcpError(): McpError;
}

/**
 * The JSON-RPC error for anything a handler threw: an McpError as it is, an error exposing
 * `toMcpError()` mapped by it; undefined for anything else (a server fault).
 */
export function mcpErrorOf(error: unknown): McpError | undefined {
  if (error instanceof McpError) return error;
  if (typeof error !== 'object' || error === null || typeof (error as Partial<McpErrorMapping>).toMcpError !== 'function') return undefined;
  try {
    const mapped = (error as McpErrorMapping).toMcpError();
    return mapped instanceof McpError ? mapped : undefined;
  } catch {
    return undefined;
  }
}
