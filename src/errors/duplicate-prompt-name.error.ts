import { McpDefinitionError } from './mcp-definition.error';

/** Two prompts share a name. */
export class DuplicatePromptNameError extends McpDefinitionError {
  constructor(name: string, first: string, second: string) {
    super(`Prompt name "${name}" is declared twice: by ${first} and by ${second}`);
  }
}
