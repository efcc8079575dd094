/**
 * A failure the CLI reports as one line (what went wrong and how to fix it) and an exit code,
 * never as a stack trace.
 */
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    message: string,
    /** 1 for a failure, 2 for a usage mistake. */
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** The first line of an error's message: enough to name the problem on one line. */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0];
}
