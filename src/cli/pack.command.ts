import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { McpTestClient } from '../testing/mcp-test-client';
import { CliError } from './cli-error';
import { type Command, keepStdoutForOutput, parseCommandArgs } from './command';
import { resolveEntry } from './entry';
import { ENTRY_HELP, ENTRY_OPTIONS } from './inspect.command';
import { loadModuleClass } from './load-module';
import { bundleFiles, writeBundle } from './pack-bundle';
import {
  type ListedSurface,
  type ManifestPrompt,
  mcpbManifest,
  nothingToList,
  type PackageJson,
  type PackInfo,
  readPackInfo,
  serverCard,
  serverJson,
} from './pack-metadata';
import { findUp, shown } from './project';
import { readSurface, withClient } from './surface';

export const packCommand: Command = {
  name: 'pack',
  summary: 'make an MCP bundle (.mcpb) for desktop clients and the server.json of the MCP Registry, from the app and package.json',
  help: `Usage: mcpkit pack [entry] [options]

Describes this server for distribution, from the application itself (its tools and prompts) and
package.json (name, version, description, author, mcpName, and the settings under "mcpkit"), so
that no version or tool list is ever written twice:

  server.json            the MCP Registry's description (schema 2025-12-11): the npm package run by
                         npx with --stdio (when the package has a "bin" and is not private), and each
                         deployment of "mcpkit.remotes"; written when package.json has an "mcpName"
  server-card.json       a server card (SEP-2127, a draft) for those remotes: the same identity, with the
                         capabilities, tools, prompts and resources as listed; serve it with the HTTP
                         option serverCard, at /.well-known/mcp/server-card
  <name>-<version>.mcpb  an MCP bundle: manifest.json (MCPB 0.3), the files npm would publish (less the
                         clients' configurations that mcpkit install writes), the compiled server, and
                         the production dependencies as installed; desktop clients start it with their
                         own Node and ask the user for each setting

  --main <file>   the file that starts the server (default: the package's "bin", else its "main")
  --out <dir>     where the .mcpb goes (default: the project's folder)
  --check         write nothing: exit 1 when the committed server.json (or server-card.json) differs
                  from what pack would write (run it in CI, so that no release ships a stale one)

Settings are the environment variables the server reads, declared in package.json:
  "mcpkit": { "settings": { "API_KEY": { "description": "…", "secret": true, "required": true } } }
(type: string, number, boolean, directory or file; title; default). Remotes:
  "mcpkit": { "remotes": [{ "url": "https://mcp.example.com/mcp" }] }

${ENTRY_HELP}`,

  async run(args) {
    const { values, positionals } = parseCommandArgs('pack', args, {
      ...ENTRY_OPTIONS,
      main: { type: 'string' },
      out: { type: 'string' },
      check: { type: 'boolean' },
    });
    if (positionals.length > 1) throw new CliError(`pack takes one entry, got ${positionals.length} (see mcpkit pack --help)`, 2);
    const root = findUp('package.json', process.cwd());
    if (!root) throw new CliError('no package.json here or above: run mcpkit pack in your server’s project');
    const info = readPackInfo(readJson(join(root, 'package.json')) as PackageJson);
    if (values.check && !info.mcpName) throw new CliError('nothing to check: package.json has no "mcpName", so pack writes no server.json');
    // A package the registry cannot list (a private one, say) still makes a bundle: only server.json is left out.
    const unlisted = info.mcpName ? nothingToList(info) : undefined;
    if (values.check && unlisted) throw new CliError(`nothing to check: pack writes no server.json, as there is ${unlisted}`);

    keepStdoutForOutput();
    const entry = resolveEntry(positionals[0], { kind: 'module', build: !values['skip-build'], project: values.project });
    const surface = await withClient(loadModuleClass(entry.js, values.module), listed);
    const main = serverMain(root, info, values.main, values.project);
    const described = describedFiles(info, surface);
    if (values.check) return check(root, described);
    // Everything pack refuses is refused before it writes: the manifest checks its fields here.
    mcpbManifest(info, surface, main);
    const outDir = resolve(values.out ?? root);
    mkdirSync(outDir, { recursive: true });
    // Written before the files are listed, so that a bundle holds the descriptions npm would publish, each time.
    for (const [name, document] of described) {
      writeFileSync(join(root, name), JSON.stringify(document, null, 2) + '\n');
      process.stderr.write(`mcpkit: wrote ${shown(join(root, name))} (${info.mcpName} ${info.version})\n`);
    }
    if (!info.mcpName) process.stderr.write('mcpkit: no "mcpName" in package.json, so no server.json (the MCP Registry needs one)\n');
    if (unlisted) process.stderr.write(`mcpkit: no server.json, as there is ${unlisted}\n`);
    const { files, native, problems } = bundleFiles(root);
    addOutputFolder(root, main, files);
    for (const problem of problems) process.stderr.write(`mcpkit: note: npm ls: ${problem}\n`);
    // A compiled addon runs on the platform it was built for only.
    if (native) process.stderr.write(`mcpkit: note: a dependency is built for ${process.platform} only: so is the bundle\n`);
    const manifest = mcpbManifest(info, surface, main, native ? [process.platform] : undefined);
    const bin = info.bin && !info.private ? join(root, info.bin) : undefined;
    if (bin && existsSync(bin) && !readFileSync(bin, 'utf8').startsWith('#!'))
      process.stderr.write(`mcpkit: note: ${info.bin} has no "#!/usr/bin/env node" first line, which npx needs to run the bin\n`);
    const out = join(outDir, `${String(manifest.name)}-${info.version}.mcpb`);
    const { bytes, sha256 } = await writeBundle(out, manifest, files);
    process.stderr.write(
      `mcpkit: wrote ${shown(out)} (${(bytes / 1024 / 1024).toFixed(1)} MB, ${files.size + 1} files, ` +
        `${surface.tools.length} tools, ${surface.listed.prompts.length} prompts; sha256 ${sha256})\n`,
    );
    return 0;
  },
};

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read ${shown(file)}: ${(error as Error).message}`);
  }
}

/** server.json when the package has an mcpName and the registry can list it, and server-card.json when it also declares remotes. */
function describedFiles(info: PackInfo, surface: ListedSurface): Map<string, Record<string, unknown>> {
  const files = new Map<string, Record<string, unknown>>();
  if (!info.mcpName || nothingToList(info)) return files;
  files.set('server.json', serverJson(info));
  if (info.remotes.length > 0) files.set('server-card.json', serverCard(info, surface));
  return files;
}

/** `--check`: each committed description must be what pack writes now. */
function check(root: string, described: Map<string, Record<string, unknown>>): number {
  let stale = 0;
  for (const [name, expected] of described) {
    const file = join(root, name);
    if (!existsSync(file)) {
      process.stderr.write(`mcpkit: ${shown(file)} is missing: run mcpkit pack and commit it\n`);
      stale++;
      continue;
    }
    const committed = readJson(file) as Record<string, unknown>;
    const fields = [...new Set([...Object.keys(committed), ...Object.keys(expected)])].filter(
      (key) => !isDeepStrictEqual(committed[key], expected[key]),
    );
    const verb = fields.length === 1 ? 'differs' : 'differ';
    if (fields.length === 0) {
      process.stderr.write(`mcpkit: ${shown(file)} is up to date\n`);
    } else {
      process.stderr.write(`mcpkit: ${shown(file)} is stale (${fields.join(', ')} ${verb}): run mcpkit pack and commit it\n`);
      stale++;
    }
  }
  return stale === 0 ? 0 : 1;
}

/** The tools and prompts as listed, each prompt rendered with `${arguments.x}` placeholders. */
async function listed(client: McpTestClient, app: Parameters<typeof readSurface>[1]): Promise<ListedSurface> {
  const surface = await readSurface(client, app);
  const prompts: ManifestPrompt[] = [];
  let promptsGenerated = false;
  for (const prompt of surface.prompts) {
    const args = (prompt.arguments ?? []) as { name: string; required?: boolean }[];
    const names = args.map((a) => a.name);
    const optional = args.filter((a) => a.required !== true).map((a) => a.name);
    const text = await promptText(client, String(prompt.name), names);
    if (text === undefined || !(await withoutEach(client, String(prompt.name), names, optional, text))) promptsGenerated = true;
    else
      prompts.push({
        name: String(prompt.name),
        ...(typeof prompt.description === 'string' ? { description: prompt.description } : {}),
        arguments: names,
        text,
      });
  }
  const title = surface.server.title;
  return {
    ...(typeof title === 'string' ? { title } : {}),
    listed: { capabilities: surface.capabilities, tools: surface.tools, prompts: surface.prompts, resources: surface.resources },
    tools: surface.tools.map((t) => ({
      name: String(t.name),
      ...(typeof t.description === 'string' ? { description: t.description } : {}),
    })),
    prompts,
    promptsGenerated,
  };
}

/** A prompt's text with a placeholder for each argument; undefined when it is not plain text of its arguments. */
async function promptText(client: McpTestClient, name: string, args: readonly string[]): Promise<string | undefined> {
  try {
    const placeholders = Object.fromEntries(args.map((a) => [a, `\${arguments.${a}}`]));
    const result = (await client.request('prompts/get', { name, arguments: placeholders })) as {
      messages: { content: { type: string; text?: string } }[];
    };
    const parts = result.messages.map((m) => (m.content.type === 'text' ? m.content.text : undefined));
    return parts.every((p) => typeof p === 'string') ? parts.join('\n\n') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether leaving out each optional argument only empties its placeholder. A manifest prompt has one text, which a
 * client fills in: text that shows only with the argument ("… in ${arguments.language}") would dangle without it.
 */
async function withoutEach(
  client: McpTestClient,
  name: string,
  args: readonly string[],
  optional: readonly string[],
  text: string,
): Promise<boolean> {
  for (const left of optional) {
    const without = await promptText(
      client,
      name,
      args.filter((a) => a !== left),
    );
    if (without !== text.replaceAll(`\${arguments.${left}}`, '')) return false;
  }
  return true;
}

/** The compiled file that serves, relative to the project: given, else the package's bin, else its main. */
function serverMain(root: string, info: PackInfo, given: string | undefined, project: string | undefined): string {
  const arg = given ?? (info.bin === undefined ? undefined : join(root, info.bin));
  const js = resolveEntry(arg, { kind: 'main', build: false, project }).js;
  if (!existsSync(js)) throw new CliError(`the server's entry ${shown(js)} does not exist: build the project first`);
  const at = relative(root, js);
  if (at.startsWith('..') || isAbsolute(at)) throw new CliError(`the server's entry ${shown(js)} is outside the project ${shown(root)}`);
  return at.split(sep).join('/');
}

/** The compiled output holding the entry (its top folder), which npm's list leaves out when it is git-ignored. */
function addOutputFolder(root: string, main: string, files: Map<string, string>): void {
  if (files.has(main)) return;
  const top = main.split('/')[0];
  if (top === main) {
    files.set(main, join(root, main));
    return;
  }
  for (const path of readdirSync(join(root, top), { recursive: true }) as string[]) {
    const file = join(root, top, path);
    if (statSync(file).isFile() && !path.endsWith('.mcpb')) files.set(`${top}/${path.split(sep).join('/')}`, file);
  }
}
