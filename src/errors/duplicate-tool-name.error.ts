import { McpDefinitionError } from './mcp-definition.error';

/** Two tools share a name. */
export class DuplicateToolNameError extends McpDefinitionError {
  constructor(name: string, first: string, second: string) {
    super(`Tool name "${name}" is declared twice: by ${first} and by ${second}`);
  }
}
