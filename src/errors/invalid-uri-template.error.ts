import { McpDefinitionError } from './mcp-definition.error';

/** A URI template that RFC 6570 does not allow, or that mcpkit cannot match against. */
export class InvalidUriTemplateError extends McpDefinitionError {
  constructor(template: string, problem: string) {
    super(`Invalid URI template "${template}": ${problem}`);
  }
}
