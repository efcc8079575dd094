import { McpDefinitionError } from './mcp-definition.error';

/**
 * The application and mcpkit see different copies of a peer package (typically after `npm install
 * ../mcpkit`): the application's decorators register into one tsyringe, mcpkit resolves through another.
 * `what` says what cannot be done; `copies` names every path and the fix.
 */
export class DuplicatePeerPackageError extends McpDefinitionError {
  constructor(what: string, copies: string) {
    super(`${what} because ${copies}`);
  }
}
