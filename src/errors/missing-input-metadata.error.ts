import { McpDefinitionError } from './mcp-definition.error';

/** A handler whose input type mcpkit cannot derive a schema or validation from. */
export class MissingInputMetadataError extends McpDefinitionError {
  constructor(where: string, typeName: string) {
    super(
      typeName === 'Object'
        ? `${where}: the input type is an interface, a type literal or \`any\` (its runtime type is Object). ` +
            `Interfaces and types vanish at runtime, so there is nothing to derive a schema from or validate against: ` +
            `declare the input as a class whose properties have class-validator decorators ` +
            `(class SearchInput { @IsString() q!: string }), or pass it as \`input: SearchInput\` to the decorator.`
        : `${where}: input type ${typeName} carries no class-validator metadata. ` +
            `Use a class whose properties have class-validator decorators (or EmptyInput for no arguments).`,
    );
  }
}
