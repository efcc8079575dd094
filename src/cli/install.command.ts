import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { CliError } from './cli-error';
import { cliPackage } from './cli-package';
import { type Command, parseCommandArgs, writeOut } from './command';
import { formatEntry, writeConfigEntry } from './config-file';
import { resolveEntry } from './entry';
import { CLIENTS, type ClientTarget, type Scope, type ServerLaunch } from './install-clients';
import { inNodeRange } from './node-range';
import { findUp, shown } from './project';

// ASCII only: clients name the server's tools after it (Claude's mcp__<server>__<tool>), and Codex refuses others.
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

export const installCommand: Command = {
  name: 'install',
  summary: "add this server to a client's configuration (Claude Desktop, Claude Code, Cursor, VS Code, Goose, Codex)",
  help: `Usage: mcpkit install <client> [entry] [options] [-- server arguments]

Adds this project's server to a client's own configuration file, keeping the servers and settings
already there (a copy of the file is kept as <file>.bak; a file that does not parse is left alone).
Over stdio the client starts the server itself: the entry is built, and the configuration names
Node and the compiled entry by absolute paths, with --stdio and the server arguments after it, so
that no client needs a working directory. With --http the client connects to a running server.

Clients: ${CLIENTS.map((c) => c.id).join(', ')}

Entry: the file that starts your server; default the package.json "main", else src/main.ts.

  --name <name>         the server's name in the client: ASCII letters, digits, _ or - (default: the package's name)
  --http <url>          a server over Streamable HTTP at this URL, instead of stdio
  --header "K: V"       an HTTP header the client sends (repeat for more)
  --env KEY=VALUE       an environment variable of the server, written into the configuration
  --secret KEY          an environment variable the client supplies at start, never written: Claude Code
                        and Cursor read it from their environment, VS Code asks for it once
  --scope project|user  the project's configuration or yours (where the client has both)
  --config <file>       write to this file instead of the client's own
  --node <path>         the Node the client runs (default: the one running mcpkit)
  --print               print the entry instead of writing it
  -p, --project <file>  the tsconfig to build the entry with
  --skip-build          do not build a .ts entry first`,

  async run(args) {
    const { values, positionals } = parseCommandArgs('install', args, {
      name: { type: 'string' },
      http: { type: 'string' },
      header: { type: 'string', multiple: true },
      env: { type: 'string', multiple: true },
      secret: { type: 'string', multiple: true },
      scope: { type: 'string' },
      config: { type: 'string' },
      node: { type: 'string' },
      print: { type: 'boolean' },
      project: { type: 'string', short: 'p' },
      'skip-build': { type: 'boolean' },
    });
    const extra = args.includes('--') ? args.slice(args.indexOf('--') + 1) : [];
    const [clientId, ...entries] = positionals.slice(0, positionals.length - extra.length);
    const client = CLIENTS.find((c) => c.id === clientId);
    if (!client)
      throw new CliError(
        `${clientId === undefined ? 'name a client' : `unknown client "${clientId}"`}: one of ${CLIENTS.map((c) => c.id).join(', ')}`,
        2,
      );
    if (entries.length > 1) throw new CliError(`install takes one entry, got ${entries.length} (see mcpkit install --help)`, 2);
    const scope = scopeOf(client, values.scope);
    const root = findUp('package.json', process.cwd()) ?? process.cwd();
    const name = values.name ?? packageName(root);
    if (!NAME.test(name))
      throw new CliError(`--name must be 1-64 ASCII letters (a-z, A-Z), digits, _ or -, got "${name}": clients name its tools after it`, 2);
    const server: ServerLaunch = values.http
      ? { name, http: { url: checkedUrl(values.http), headers: headers(values.header ?? []) } }
      : {
          name,
          stdio: {
            command: resolve(values.node ?? process.execPath),
            args: [serverEntry(entries[0], values.project, values['skip-build'] === true), '--stdio', ...extra],
            env: envVars(values.env ?? []),
            secrets: secretNames(values.secret ?? []),
          },
        };
    if (values.http && (values.env || values.secret || extra.length > 0))
      throw new CliError('--env, --secret and server arguments go with a stdio server, not with --http', 2);
    const entry = client.entry(server);
    if (server.stdio) checkNode(server.stdio.command, root);
    const extraEdit = client.extra?.(server);
    if (values.print) {
      await writeOut(formatEntry(client.format, client.path(name), entry));
      return 0;
    }
    const file = values.config ? resolve(values.config) : client.file(scope, root);
    if (server.http && Object.keys(server.http.headers).length > 0 && scope === 'project' && !values.config)
      process.stderr.write(`mcpkit: note: the header values are written into ${shown(file)}, a project file that is usually committed\n`);
    const written = writeConfigEntry(file, client.format, client.path(name), entry, extraEdit);
    process.stderr.write(
      `mcpkit: ${written.replaced ? 'replaced' : 'added'} "${name}" in ${client.title}'s ${shown(written.file)}` +
        `${written.backup ? ` (the file as it was: ${shown(written.backup)})` : ''}\n`,
    );
    return 0;
  },
};

function scopeOf(client: ClientTarget, given: string | undefined): Scope {
  if (given === undefined) return client.scopes[0];
  if (!client.scopes.includes(given as Scope))
    throw new CliError(`${client.title} has ${client.scopes.map((s) => `--scope ${s}`).join(' and ')} only, not "${given}"`, 2);
  return given as Scope;
}

/** The package's name, without its scope, as a server name; else the folder's name. */
function packageName(root: string): string {
  const file = join(root, 'package.json');
  const name = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name : undefined;
  const plain = typeof name === 'string' ? name.replace(/^@[^/]+\//, '') : basename(root);
  return plain.replace(/[^A-Za-z0-9_-]/g, '-');
}

/**
 * Warns when the Node the entry names is older than mcpkit or the project needs (their package.json "engines"):
 * the client would start a server that fails at once, with nothing on the user's screen.
 */
function checkNode(node: string, root: string): void {
  const version = node === process.execPath ? process.version : nodeVersion(node);
  if (version === undefined) {
    process.stderr.write(`mcpkit: warning: ${node} --version does not run: the client cannot start the server with it (see --node)\n`);
    return;
  }
  const needs = [
    { who: 'mcpkit', range: cliPackage().engines.node },
    { who: `this project (${shown(join(root, 'package.json'))})`, range: projectEngines(root) },
  ];
  for (const { who, range } of needs)
    if (range !== undefined && inNodeRange(version, range) === false)
      process.stderr.write(
        `mcpkit: warning: the entry runs ${node}, Node ${version}, but ${who} needs Node ${range} ("engines"): ` +
          'pass --node with the path of a Node in that range\n',
      );
}

function nodeVersion(node: string): string | undefined {
  const run = spawnSync(node, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return run.status === 0 && /^v\d/.test(run.stdout.trim()) ? run.stdout.trim() : undefined;
}

function projectEngines(root: string): string | undefined {
  const file = join(root, 'package.json');
  const node = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { engines?: { node?: unknown } }).engines?.node : undefined;
  return typeof node === 'string' ? node : undefined;
}

/** The compiled entry, by its absolute path, built first unless told not to. */
function serverEntry(arg: string | undefined, project: string | undefined, skipBuild: boolean): string {
  const entry = resolveEntry(arg, { kind: 'main', build: !skipBuild, project });
  if (!existsSync(entry.js))
    throw new CliError(`entry file not found: ${shown(entry.js)}; build the project, or pass the file that starts your server`);
  return resolve(entry.js);
}

function checkedUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString();
  } catch {
    // reported below
  }
  throw new CliError(`--http must be an http:// or https:// URL, got "${value}"`, 2);
}

function headers(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf(':');
    if (at <= 0) throw new CliError(`--header must be "Name: value", got "${value}"`, 2);
    out[value.slice(0, at).trim()] = value.slice(at + 1).trim();
  }
  return out;
}

function envVars(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    if (at <= 0) throw new CliError(`--env must be KEY=VALUE, got "${value}"`, 2);
    out[value.slice(0, at)] = value.slice(at + 1);
  }
  return out;
}

function secretNames(values: readonly string[]): string[] {
  for (const value of values)
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) throw new CliError(`--secret takes an environment variable's name, got "${value}"`, 2);
  return [...values];
}
