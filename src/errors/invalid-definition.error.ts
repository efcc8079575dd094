import { McpDefinitionError } from './mcp-definition.error';

/** A tool, resource or prompt registered at runtime (`app.addTool()`…) has a definition mcpkit cannot serve. */
export class InvalidDefinitionError extends McpDefinitionError {
  constructor(what: string, problem: string) {
    super(`${what}: ${problem}`);
  }
}
