import { McpDefinitionError } from './mcp-definition.error';

/** An extension declared by the server (the `extensions` option) is malformed, or declared twice with different settings. */
export class InvalidExtensionError extends McpDefinitionError {
  constructor(where: string, problem: string) {
    super(`Extension declared by ${where}: ${problem}`);
  }
}
