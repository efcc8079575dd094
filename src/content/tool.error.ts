/**
 * An error a tool reports to the model: the call ends with `isError: true` and this message, so the
 * model can read it and correct itself. Any other exception becomes a generic message.
 */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
