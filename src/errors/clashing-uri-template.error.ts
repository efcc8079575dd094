import { McpDefinitionError } from './mcp-definition.error';

/** Two URI templates match exactly the same URIs, so a read could not tell them apart. */
export class ClashingUriTemplateError extends McpDefinitionError {
  constructor(first: string, firstWhere: string, second: string, secondWhere: string) {
    super(`URI template "${second}" (${secondWhere}) clashes with "${first}" (${firstWhere}): they match the same URIs`);
  }
}
