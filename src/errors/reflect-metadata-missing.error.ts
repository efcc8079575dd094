import { DECORATOR_SETUP } from './decorator-setup';
import { McpDefinitionError } from './mcp-definition.error';

/** Decorator metadata is unavailable: reflect-metadata is not loaded, or the compiler did not emit it. */
export class ReflectMetadataMissingError extends McpDefinitionError {
  constructor(detail: string) {
    super(
      `${detail}. Import "reflect-metadata" once before anything else, and compile with ` +
        `"experimentalDecorators" and "emitDecoratorMetadata" (esbuild-based runners such as tsx do not emit it).\n${DECORATOR_SETUP}`,
    );
  }
}
