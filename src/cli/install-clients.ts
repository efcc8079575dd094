import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from './cli-error';
import type { ConfigFormat } from './config-file';

/** How a client starts or reaches the server. */
export interface ServerLaunch {
  readonly name: string;
  /** A local process over stdio: absolute paths, so that no client needs a working directory. */
  readonly stdio?: {
    readonly command: string;
    readonly args: readonly string[];
    /** Written as given. */
    readonly env: Readonly<Record<string, string>>;
    /** Names whose values the client supplies at start (its environment, a prompt), never written. */
    readonly secrets: readonly string[];
  };
  /** A server over Streamable HTTP. */
  readonly http?: { readonly url: string; readonly headers: Readonly<Record<string, string>> };
}

export type Scope = 'project' | 'user';

/** Where a client keeps its servers, and the entry it expects for one. */
export interface ClientTarget {
  readonly id: string;
  readonly title: string;
  readonly format: ConfigFormat;
  /** The scopes it has, the default first. */
  readonly scopes: readonly Scope[];
  /** Its configuration file for a scope: `project` is the project's folder. */
  file(scope: Scope, project: string): string;
  /** Where the server's entry goes in that file. */
  path(name: string): string[];
  /** The server's entry, as this client documents it; throws CliError for what the client cannot do. */
  entry(server: ServerLaunch): unknown;
  /** Other places of the file the entry needs (VS Code's `inputs` for secrets), merged with what is there. */
  extra?(server: ServerLaunch): { path: string[]; merge: (current: unknown) => unknown } | undefined;
}

/** The per-user folder desktop applications keep settings in, by platform (an empty variable counts as unset). */
function appData(...parts: string[]): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', ...parts);
  if (process.platform === 'win32') return join(process.env.APPDATA || join(homedir(), 'AppData', 'Roaming'), ...parts);
  return join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), ...parts);
}

/** `{ env }` when there is any: clients take an absent `env` as none. */
function envOf(env: Record<string, string>): { env?: Record<string, string> } {
  return Object.keys(env).length > 0 ? { env } : {};
}

function headersOf(headers: Readonly<Record<string, string>>, key = 'headers'): Record<string, Record<string, string>> {
  return Object.keys(headers).length > 0 ? { [key]: { ...headers } } : {};
}

/** The stdio part of a launch, or a clear refusal for a client that cannot take secrets from elsewhere. */
function stdioOf(client: string, server: ServerLaunch, secret?: (name: string) => string) {
  const stdio = server.stdio!;
  if (stdio.secrets.length > 0 && !secret)
    throw new CliError(
      `${client} cannot read a value from its environment into a server's: ` +
        `pass --env ${stdio.secrets[0]}=<value> to write it into its configuration`,
    );
  const env: Record<string, string> = { ...stdio.env };
  for (const name of stdio.secrets) env[name] = secret!(name);
  return { command: stdio.command, args: [...stdio.args], env };
}

export const CLIENTS: readonly ClientTarget[] = [
  {
    id: 'claude-desktop',
    title: 'Claude Desktop',
    format: 'json',
    scopes: ['user'],
    file: () => appData('Claude', 'claude_desktop_config.json'),
    path: (name) => ['mcpServers', name],
    entry(server) {
      if (server.http)
        throw new CliError('Claude Desktop adds remote servers as connectors (Settings > Connectors), not in its configuration file');
      const { command, args, env } = stdioOf('Claude Desktop', server);
      return { command, args, ...envOf(env) };
    },
  },
  {
    id: 'claude-code',
    title: 'Claude Code',
    format: 'json',
    scopes: ['project', 'user'],
    file: (scope, project) => (scope === 'project' ? join(project, '.mcp.json') : join(homedir(), '.claude.json')),
    path: (name) => ['mcpServers', name],
    entry(server) {
      if (server.http) return { type: 'http', url: server.http.url, ...headersOf(server.http.headers) };
      const { command, args, env } = stdioOf('Claude Code', server, (name) => `\${${name}}`);
      return { type: 'stdio', command, args, ...envOf(env) };
    },
  },
  {
    id: 'cursor',
    title: 'Cursor',
    format: 'json',
    scopes: ['project', 'user'],
    file: (scope, project) => join(scope === 'project' ? project : homedir(), '.cursor', 'mcp.json'),
    path: (name) => ['mcpServers', name],
    entry(server) {
      if (server.http) return { url: server.http.url, ...headersOf(server.http.headers) };
      const { command, args, env } = stdioOf('Cursor', server, (name) => `\${env:${name}}`);
      return { command, args, ...envOf(env) };
    },
  },
  {
    id: 'vscode',
    title: 'VS Code',
    format: 'json',
    scopes: ['project', 'user'],
    file: (scope, project) => (scope === 'project' ? join(project, '.vscode', 'mcp.json') : appData('Code', 'User', 'mcp.json')),
    path: (name) => ['servers', name],
    entry(server) {
      if (server.http) return { type: 'http', url: server.http.url, ...headersOf(server.http.headers) };
      const { command, args, env } = stdioOf('VS Code', server, (name) => `\${input:${name}}`);
      return { type: 'stdio', command, args, ...envOf(env) };
    },
    // Each secret is an input VS Code asks for once, and keeps in its secret storage.
    extra(server) {
      const secrets = server.stdio?.secrets ?? [];
      if (secrets.length === 0) return undefined;
      return {
        path: ['inputs'],
        merge: (current) => {
          const inputs = Array.isArray(current) ? [...(current as Record<string, unknown>[])] : [];
          for (const id of secrets)
            if (!inputs.some((i) => i.id === id))
              inputs.push({ type: 'promptString', id, description: `${id} for ${server.name}`, password: true });
          return inputs;
        },
      };
    },
  },
  {
    id: 'goose',
    title: 'Goose',
    format: 'yaml',
    scopes: ['user'],
    file: () =>
      process.platform === 'win32'
        ? appData('Block', 'goose', 'config', 'config.yaml')
        : join(homedir(), '.config', 'goose', 'config.yaml'),
    path: (name) => ['extensions', name],
    entry(server) {
      const common = { name: server.name, enabled: true, timeout: 300 };
      if (server.http) return { ...common, type: 'streamable_http', uri: server.http.url, ...headersOf(server.http.headers) };
      const { command, args, env } = stdioOf('Goose', server);
      return { ...common, type: 'stdio', cmd: command, args, envs: env };
    },
  },
  {
    id: 'codex',
    title: 'Codex',
    format: 'toml',
    scopes: ['user', 'project'],
    file: (scope, project) =>
      scope === 'project'
        ? join(project, '.codex', 'config.toml')
        : join(process.env.CODEX_HOME || join(homedir(), '.codex'), 'config.toml'),
    path: (name) => ['mcp_servers', name],
    entry(server) {
      if (server.http) return { url: server.http.url, ...headersOf(server.http.headers, 'http_headers') };
      const { command, args, env } = stdioOf('Codex', server);
      return { command, args, ...envOf(env) };
    },
  },
  {
    id: 'mcp-json',
    title: 'an mcp.json file',
    format: 'json',
    scopes: ['project'],
    file: (_scope, project) => join(project, 'mcp.json'),
    path: (name) => ['mcpServers', name],
    entry(server) {
      if (server.http) return { type: 'http', url: server.http.url, ...headersOf(server.http.headers) };
      const { command, args, env } = stdioOf('an mcp.json file', server);
      return { command, args, ...envOf(env) };
    },
  },
];
