import { McpDefinitionError } from './mcp-definition.error';

/** A class passed as a module, or a provider inside one, that mcpkit cannot use. */
export class InvalidModuleError extends McpDefinitionError {
  constructor(problem: string) {
    super(problem);
  }
}
