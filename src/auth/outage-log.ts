/**
 * Logs a run of faults of one dependency once: the first fault of an outage with its error, then, when
 * it answers again, how many requests failed meanwhile.
 */
export class OutageLog {
  private failures = 0;

  constructor(
    private readonly logError: (message: string, error?: unknown) => void,
    private readonly what: string,
  ) {}

  failed(error: unknown): void {
    if (this.failures++ === 0) this.logError(`${this.what} failed (logged once until it answers again)`, error);
  }

  recovered(): void {
    if (this.failures === 0) return;
    this.logError(`${this.what} answers again, after failing ${this.failures} request(s)`);
    this.failures = 0;
  }
}
