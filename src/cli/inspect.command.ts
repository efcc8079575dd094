import type { Command } from './command';
import { keepStdoutForOutput, parseCommandArgs, writeOut } from './command';
import { CliError } from './cli-error';
import { resolveEntry } from './entry';
import { formatSurface } from './inspect-format';
import { formatViews, viewsDts, viewsOf } from './inspect-views';
import { loadModuleClass } from './load-module';
import { readSurface, withClient } from './surface';
import { UI_EXTENSION, VIEW_MIME_TYPE } from '../views/view.types';

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
  summary: 'print the tools, resources, templates, prompts and skills of a module (text or --json), or its views and their data types',
  help: `Usage: mcpkit inspect [entry] [--json] [--views [--dts]]

Builds the application without serving it and prints what a client would list: tools (with input
and output schemas), resources, resource templates, prompts and skills; in search mode, also the
catalog behind the search tool and its groups.

  --json               one JSON document (server, capabilities, tools, resources, resourceTemplates,
                       prompts, skills), exactly as the list methods answer; diff it in CI to watch a surface
  --views              the views (MCP Apps ui:// resources): for each, its URI, the tools that open it and
                       the JSON Schema of their output, the data the view receives (with --json: as JSON)
  --dts                with --views: a TypeScript .d.ts instead, one exported type per view's data
                       (mcpkit inspect --views --dts > src/views/view-data.d.ts)

${ENTRY_HELP}`,

  async run(args) {
    const options = { ...ENTRY_OPTIONS, json: { type: 'boolean' }, views: { type: 'boolean' }, dts: { type: 'boolean' } } as const;
    const { values, positionals } = parseCommandArgs('inspect', args, options);
    if (positionals.length > 1) throw new CliError(`inspect takes one entry, got ${positionals.length} (see mcpkit inspect --help)`, 2);
    if (values.dts && !values.views) throw new CliError('--dts goes with --views (mcpkit inspect --views --dts)', 2);
    if (values.dts && values.json) throw new CliError('--dts prints TypeScript; leave out --json', 2);
    keepStdoutForOutput();
    const entry = resolveEntry(positionals[0], { kind: 'module', build: !values['skip-build'], project: values.project });
    const module = loadModuleClass(entry.js, values.module);
    // For views, inspect as a client of the MCP Apps extension: servers may keep view metadata from others.
    const capabilities = values.views ? { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } } } : {};
    const surface = await withClient(module, readSurface, capabilities);
    if (values.views) {
      const views = viewsOf(surface);
      await writeOut(values.dts ? viewsDts(views) : values.json ? JSON.stringify({ views }, null, 2) + '\n' : formatViews(views));
    } else {
      await writeOut(values.json ? JSON.stringify(surface, null, 2) + '\n' : formatSurface(surface));
    }
    return 0;
  },
};
