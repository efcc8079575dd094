import { McpDefinitionError } from './mcp-definition.error';

/** Two resources (or templates) share a URI or a name. */
export class DuplicateResourceError extends McpDefinitionError {
  constructor(what: string, first: string, second: string) {
    super(`Resource ${what} is declared twice: by ${first} and by ${second}`);
  }
}
