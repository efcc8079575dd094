import { parseArgs, type ParseArgsConfig } from 'node:util';
import { redirectConsoleToStderr } from '../kernel/console-redirect';
import { CliError } from './cli-error';

/** One `mcpkit <name>` command. */
export interface Command {
  readonly name: string;
  /** One line for `mcpkit --help`. */
  readonly summary: string;
  /** The full text of `mcpkit <name> --help`. */
  readonly help: string;
  /** Runs with the arguments after the command name; resolves with the exit code. */
  run(args: string[]): Promise<number>;
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values<O extends Options> = {
  [K in keyof O]?: O[K] extends { type: 'boolean' } ? boolean : O[K] extends { multiple: true } ? string[] : string;
};

/** Parses a command's arguments strictly; an unknown option is a usage error naming the command. */
export function parseCommandArgs<O extends Options>(
  command: string,
  args: string[],
  options: O,
): { values: Values<O>; positionals: string[] } {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${(error as Error).message.split(/\.( |$)/)[0]} (see mcpkit ${command} --help)`, 2);
  }
}

/** Writes to stdout and resolves once the data is handed to the OS, so exiting next loses nothing. */
export function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())));
}

/**
 * Keeps stdout for the command's own output: whatever the user's modules print while they load or
 * run goes to stderr, so `--json` output can be piped and diffed.
 */
export function keepStdoutForOutput(): void {
  redirectConsoleToStderr();
}
