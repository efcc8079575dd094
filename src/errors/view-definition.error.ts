import { McpDefinitionError } from './mcp-definition.error';

/** A `@View` cannot be served: its URI, HTML or CSP is not what the MCP Apps extension allows. */
export class InvalidViewError extends McpDefinitionError {
  constructor(where: string, problem: string) {
    super(`@View on ${where}: ${problem}`);
  }
}

/** A tool's `ui` names a class that is not a declared view listed among the providers. */
export class UnknownViewError extends McpDefinitionError {
  constructor(where: string, problem: string) {
    super(`@Tool on ${where}: ${problem}`);
  }
}

/** A tool with a view has no text for hosts that do not render views. */
export class MissingTextFallbackError extends McpDefinitionError {
  constructor(where: string) {
    super(
      `@Tool on ${where}: a tool with a view needs a text fallback for hosts without MCP Apps: declare an \`output\` class (its JSON is sent as text) or \`ui: { view, fallback: 'handler' }\` when the handler returns its own text`,
    );
  }
}
