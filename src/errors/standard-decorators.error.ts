import { DECORATOR_SETUP } from './decorator-setup';
import { McpDefinitionError } from './mcp-definition.error';

/**
 * An mcpkit decorator was applied as a standard (TC39) decorator, `(value, context)`: the code was
 * compiled with `experimentalDecorators` off (TypeScript 5 and esbuild then emit standard
 * decorators). mcpkit, class-validator, class-transformer and tsyringe need the experimental ones.
 */
export class StandardDecoratorsError extends McpDefinitionError {
  /**
   * @param decorator the decorator's name, without `@`
   * @param where what it decorates (`Class.method`, or the name the standard context gives)
   */
  constructor(decorator: string, where: string) {
    super(
      `@${decorator} on ${where} was applied as a standard (TC39) decorator: this code was compiled with ` +
        `"experimentalDecorators" off. mcpkit, class-validator, class-transformer and tsyringe need TypeScript's ` +
        `experimental decorators.\n${DECORATOR_SETUP}`,
    );
  }
}

/** Whether a decorator's second argument is a standard decorator's context object rather than a member name. */
export function isStandardDecoratorContext(value: unknown): value is { kind: string; name?: unknown } {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';
}
