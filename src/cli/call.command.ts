import { existsSync } from 'node:fs';
import { McpError } from '../mcp/mcp.error';
import type { Command } from './command';
import { keepStdoutForOutput, parseCommandArgs, writeOut } from './command';
import { CliError } from './cli-error';
import { resolveEntry } from './entry';
import { ENTRY_HELP, ENTRY_OPTIONS } from './inspect.command';
import { loadModuleClass } from './load-module';
import { withClient } from './surface';

export const callCommand: Command = {
  name: 'call',
  summary: 'call one tool in-process and print its result as JSON',
  help: `Usage: mcpkit call [entry] <tool> [json-arguments]

Builds the application without serving it, calls the tool through an in-memory client and prints
the CallToolResult as JSON. Exit code 1 when the result has isError or the call failed.

  mcpkit call add '{"a": 1, "b": 2}'
  mcpkit call dist/app.module.js search '{"query": "milk"}'

${ENTRY_HELP}`,

  async run(args) {
    const { values, positionals } = parseCommandArgs('call', args, ENTRY_OPTIONS);
    const [entryArg, tool, json] = splitPositionals(positionals);
    const toolArguments = parseArguments(json);
    keepStdoutForOutput();
    const entry = resolveEntry(entryArg, { kind: 'module', build: !values['skip-build'], project: values.project });
    const module = loadModuleClass(entry.js, values.module);
    const result = await withClient(module, async (client) => {
      try {
        return (await client.request('tools/call', { name: tool, arguments: toolArguments })) as { isError?: boolean };
      } catch (error) {
        if (error instanceof McpError) throw new CliError(`tools/call ${tool} failed: ${error.message} (JSON-RPC error ${error.code})`);
        throw error;
      } finally {
        // What the tool logged reaches the user too, on stderr, apart from the result.
        for (const n of client.notifications.filter((n) => n.method === 'notifications/message')) {
          const { level, data } = (n.params ?? {}) as { level?: string; data?: unknown };
          process.stderr.write(`[${level}] ${typeof data === 'string' ? data : JSON.stringify(data)}\n`);
        }
      }
    });
    await writeOut(JSON.stringify(result, null, 2) + '\n');
    return result.isError ? 1 : 0;
  },
};

/**
 * `[entry] <tool> [json]`. An entry is a path (an existing file or directory, or a name with a
 * slash or a .js/.ts extension); a first value that is none is the tool, so its arguments, however
 * malformed, are reported as arguments rather than as an entry file not found.
 */
function splitPositionals(p: string[]): [string | undefined, string, string | undefined] {
  if (p.length === 0)
    throw new CliError('call needs the tool to call: mcpkit call [entry] <tool> [json-arguments] (see mcpkit call --help)', 2);
  if (p.length === 1) return [undefined, p[0], undefined];
  const entryFirst = looksLikePath(p[0]) && !(p.length === 2 && p[1].trimStart().startsWith('{'));
  if (!entryFirst && p.length === 2 && /^[A-Za-z_][\w.-]*$/.test(p[1]) && !['true', 'false', 'null'].includes(p[1]))
    throw new CliError(
      `entry file not found: ${p[0]}; pass the .js (or .ts) file that exports your @McpModule class, then the tool ` +
        `(or, if ${p[0]} is the tool, its arguments as one JSON object: mcpkit call ${p[0]} '{"name": "x"}')`,
    );
  const [entry, tool, ...rest] = entryFirst ? p : [undefined, ...p];
  if (rest.length > 1) {
    const words = rest.map((w) => `'${w}'`).join(' ');
    throw new CliError(
      `the tool arguments reached mcpkit as ${rest.length} separate words (${words}): quote the JSON object as one argument, ` +
        `e.g. mcpkit call ${entry === undefined ? '' : `${entry} `}${tool} '{"name": "x"}'`,
      2,
    );
  }
  return [entry, tool!, rest[0]];
}

function looksLikePath(value: string): boolean {
  return existsSync(value) || /[\\/]/.test(value) || /\.(c|m)?(j|t)s$/.test(value);
}

function parseArguments(json: string | undefined): Record<string, unknown> {
  if (json === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new CliError(`tool arguments are not valid JSON (${(error as Error).message}); pass an object, e.g. '{"name": "x"}'`, 2);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CliError(`tool arguments must be a JSON object, e.g. '{"name": "x"}'`, 2);
  return value as Record<string, unknown>;
}
