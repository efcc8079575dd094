import { McpDefinitionError } from './mcp-definition.error';

/** A decorator was given options it cannot use. */
export class InvalidDecoratorOptionsError extends McpDefinitionError {
  constructor(decorator: string, where: string, problem: string) {
    super(`@${decorator} on ${where}: ${problem}`);
  }
}
