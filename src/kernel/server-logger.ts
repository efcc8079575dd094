/** The server's own log (never sent to clients). Defaults to stderr, which stdio keeps free of protocol. */
export interface ServerLogger {
  error(message: string, error?: unknown): void;
  warn(message: string): void;
  info(message: string): void;
}

/** Writes one line per entry to stderr, with the stack of an error when there is one. */
export class StderrLogger implements ServerLogger {
  constructor(private readonly name = 'mcpkit') {}

  error(message: string, error?: unknown): void {
    const detail = error instanceof Error ? `\n${error.stack ?? error.message}` : error === undefined ? '' : ` ${String(error)}`;
    process.stderr.write(`[${this.name}] error: ${message}${detail}\n`);
  }
  warn(message: string): void {
    process.stderr.write(`[${this.name}] warn: ${message}\n`);
  }
  info(message: string): void {
    process.stderr.write(`[${this.name}] ${message}\n`);
  }
}
