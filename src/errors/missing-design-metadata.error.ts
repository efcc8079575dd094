import { DECORATOR_SETUP } from './decorator-setup';
import { McpDefinitionError } from './mcp-definition.error';

/**
 * reflect-metadata is loaded, but a handler's parameter types were not emitted (runners built on
 * esbuild — tsx, vitest — never emit them; nor does tsc without `emitDecoratorMetadata`), and the
 * decorator does not name the input class either. Without one or the other, mcpkit cannot tell the
 * input class from the context.
 */
export class MissingDesignMetadataError extends McpDefinitionError {
  /**
   * @param where `Class.member`
   * @param decorator the decorator that takes the `input` option (`Tool`, `Resource`, `Prompt`)
   * @param classHasNone true when the class carries no design metadata at all (so the whole file was compiled without it)
   */
  constructor(where: string, decorator: string, classHasNone: boolean) {
    const why = classHasNone
      ? `${where.split('.')[0]} carries no decorator metadata at all: it was compiled without emitDecoratorMetadata ` +
        `(esbuild-based runners such as tsx and vitest never emit it), or reflect-metadata was imported after it`
      : `no design-time parameter types were emitted for this method`;
    super(
      `${where}: mcpkit cannot tell this handler's input class, as ${why}. ` +
        `Either compile with emitDecoratorMetadata (tsc, ts-jest, swc with decoratorMetadata) or pass \`input: YourClass\` ` +
        `to @${decorator} (\`input: null\` when the method takes only the context).` +
        (classHasNone ? `\n${DECORATOR_SETUP}` : ''),
    );
  }
}
