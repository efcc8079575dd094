import { McpDefinitionError } from './mcp-definition.error';

/** A handler whose input type mcpkit cannot derive a schema or validation from. */
export class MissingInputMetadataError extends McpDefinitionError {
  constructor(where: string, typeName: string) {
    super(
      `${where}: input type ${typeName} carries no class-validator metadata. ` +
        `Use a class whose properties have class-validator decorators (or EmptyInput for no arguments).`,
    );
  }
}
