import { McpDefinitionError } from './mcp-definition.error';

/**
 * A provider cannot be built because the application's decorators registered into another copy of
 * tsyringe than the one mcpkit resolves through (typically after `npm install ../mcpkit`).
 */
export class DuplicatePeerPackageError extends McpDefinitionError {
  constructor(provider: string, detail: string, copies: string) {
    super(`Cannot construct provider ${provider} (${detail}) because ${copies}`);
  }
}
