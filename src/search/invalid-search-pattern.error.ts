/**
 * A regular-expression search whose pattern cannot be used: not valid RE2 syntax, or longer than the ranker
 * allows. Its message names the pattern and the problem, and is safe to show to the client that sent it.
 */
export class InvalidSearchPatternError extends Error {
  constructor(
    /** The pattern as the caller sent it. */
    readonly pattern: string,
    /** What is wrong with it. */
    readonly problem: string,
  ) {
    super(`Invalid search pattern "${pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern}": ${problem}`);
    this.name = new.target.name;
  }
}
