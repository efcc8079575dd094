import { McpDefinitionError } from './mcp-definition.error';

/**
 * A `@ValidateNested` property whose class cannot be known: arrays (and properties typed with an
 * interface) keep no element class at runtime, so class-transformer needs `@Type(() => X)`.
 */
export class MissingNestedTypeError extends McpDefinitionError {
  constructor(owner: string, property: string, problem: string) {
    super(
      `${owner}.${property}: @ValidateNested ${problem}, so its value would be neither validated nor turned into an instance. ` +
        `Add @Type(() => X) from class-transformer, X being the class of the nested value.`,
    );
  }
}
