import { McpDefinitionError } from './mcp-definition.error';

/** A handler whose parameters mcpkit cannot map to (input, context). */
export class InvalidHandlerSignatureError extends McpDefinitionError {
  constructor(where: string, problem: string) {
    super(`${where}: ${problem}`);
  }
}
