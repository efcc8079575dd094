import { McpDefinitionError } from './mcp-definition.error';

/** A `@Complete` (or a `complete` option of a runtime definition) names a prompt, template or argument that does not exist. */
export class UnknownCompletionTargetError extends McpDefinitionError {
  /** `decorator: false` for a definition registered at runtime (no `@Complete` to name). */
  constructor(where: string, problem: string, decorator = true) {
    super(`${decorator ? '@Complete on ' : ''}${where}: ${problem}`);
  }
}
