import type { Command } from './command';
import { keepStdoutForOutput, parseCommandArgs, writeOut } from './command';
import { CliError } from './cli-error';
import { resolveEntry } from './entry';
import { formatSurface } from './inspect-format';
import { loadModuleClass } from './load-module';
import { readSurface, withClient } from './surface';

export const ENTRY_OPTIONS = {
  module: { type: 'string' },
  project: { type: 'string', short: 'p' },
  'skip-build': { type: 'boolean' },
} as const;

export const ENTRY_HELP = `Entry: a compiled .js file (or a .ts source, built first and mapped to its output through the
tsconfig's rootDir/outDir) that exports an @McpModule class; a directory means its app.module.ts/.js.
Default: src/app.module.ts of the project in the working directory.

  --module <Name>      the module class, when the entry exports several
  -p, --project <file> the tsconfig that builds a .ts entry (default: the nearest tsconfig.json)
  --skip-build         load the compiled output of a .ts entry without building first`;

export const inspectCommand: Command = {
  name: 'inspect',
  summary: 'print the tools, resources, templates and prompts of a module (text or --json)',
  help: `Usage: mcpkit inspect [entry] [--json]

Builds the application without serving it and prints what a client would list: tools (with input
and output schemas), resources, resource templates and prompts.

  --json               one JSON document (server, capabilities, tools, resources, resourceTemplates,
                       prompts), exactly as the list methods answer; diff it in CI to watch a surface

${ENTRY_HELP}`,

  async run(args) {
    const { values, positionals } = parseCommandArgs('inspect', args, { ...ENTRY_OPTIONS, json: { type: 'boolean' } });
    if (positionals.length > 1) throw new CliError(`inspect takes one entry, got ${positionals.length} (see mcpkit inspect --help)`, 2);
    keepStdoutForOutput();
    const entry = resolveEntry(positionals[0], { kind: 'module', build: !values['skip-build'], project: values.project });
    const module = loadModuleClass(entry.js, values.module);
    const surface = await withClient(module, readSurface);
    await writeOut(values.json ? JSON.stringify(surface, null, 2) + '\n' : formatSurface(surface));
    return 0;
  },
};
