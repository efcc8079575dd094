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
