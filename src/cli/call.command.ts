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

/** `[entry] <tool> [json]`: with two values, the second is the arguments when it looks like JSON. */
function splitPositionals(p: string[]): [string | undefined, string, string | undefined] {
  if (p.length === 1) return [undefined, p[0], undefined];
  if (p.length === 2) return p[1].trimStart().startsWith('{') ? [undefined, p[0], p[1]] : [p[0], p[1], undefined];
  if (p.length === 3) return [p[0], p[1], p[2]];
  throw new CliError(`call takes [entry] <tool> [json-arguments], got ${p.length} values (see mcpkit call --help)`, 2);
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
