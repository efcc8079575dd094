/**
 * Base class of every error mcpkit throws while reading decorators and building an application.
 * Definition errors are programming mistakes found at bootstrap; they never reach a client.
 */
export class McpDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
