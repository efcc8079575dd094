import { McpDefinitionError } from './mcp-definition.error';

/** A @Complete names a prompt, template or argument that does not exist. */
export class UnknownCompletionTargetError extends McpDefinitionError {
  constructor(where: string, problem: string) {
    super(`@Complete on ${where}: ${problem}`);
  }
}
