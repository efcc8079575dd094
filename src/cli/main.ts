// Before anything that loads tsyringe or reads decorator metadata.
import 'reflect-metadata';
import { callCommand } from './call.command';
import { CliError, firstLine } from './cli-error';
import { cliPackage } from './cli-package';
import type { Command } from './command';
import { devCommand } from './dev.command';
import { initCommand } from './init.command';
import { inspectCommand } from './inspect.command';
import { installCommand } from './install.command';
import { packCommand } from './pack.command';
import { proxyCommand } from './proxy.command';

const COMMANDS: readonly Command[] = [initCommand, devCommand, inspectCommand, callCommand, installCommand, packCommand, proxyCommand];

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `Usage: mcpkit <command> [options]

${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

  mcpkit <command> --help   options of one command
  mcpkit --version          the version of mcpkit
`;
}

/** Runs the CLI with `argv` (the arguments after `mcpkit`); resolves with the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${cliPackage().version}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command)
    throw new CliError(`unknown command "${name}": use one of ${COMMANDS.map((c) => c.name).join(', ')} (see mcpkit --help)`, 2);
  const end = rest.indexOf('--');
  if ((end < 0 ? rest : rest.slice(0, end)).some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(command.help + '\n');
    return 0;
  }
  return command.run(rest);
}

/** Runs the CLI as the `mcpkit` command (bin.ts) and exits with its code. */
export function main(argv: string[] = process.argv.slice(2)): void {
  runCli(argv).then(
    (code) => {
      process.exitCode = code;
      // Handles left open by user code (timers, sockets) must not keep a finished command alive;
      // dev resolves only when it is done serving.
      process.exit(code);
    },
    (error: unknown) => {
      if (error instanceof CliError) {
        process.stderr.write(`mcpkit: ${error.message}\n`);
        process.exit(error.exitCode);
      }
      process.stderr.write(`mcpkit: unexpected failure: ${firstLine(error)}\n${error instanceof Error ? error.stack : ''}\n`);
      process.exit(1);
    },
  );
}
