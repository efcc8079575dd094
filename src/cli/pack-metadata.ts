import { PER_REQUEST_PROTOCOL_VERSIONS } from '../mcp/eras';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../mcp/mcp-types';
import { CliError } from './cli-error';

/** The fields of a package.json that `mcpkit pack` reads. */
export interface PackageJson {
  readonly name?: unknown;
  readonly version?: unknown;
  readonly description?: unknown;
  readonly private?: unknown;
  readonly author?: unknown;
  readonly license?: unknown;
  readonly homepage?: unknown;
  readonly keywords?: unknown;
  readonly repository?: unknown;
  readonly bin?: unknown;
  readonly engines?: { readonly node?: unknown };
  /** The server's name in the MCP Registry, which checks that the npm package declares it. */
  readonly mcpName?: unknown;
  readonly mcpkit?: { readonly settings?: unknown; readonly remotes?: unknown };
}

/** One environment variable the server reads, declared under `mcpkit.settings` in package.json. */
export interface Setting {
  readonly env: string;
  readonly type: 'string' | 'number' | 'boolean' | 'directory' | 'file';
  readonly title: string;
  readonly description: string;
  readonly required: boolean;
  readonly secret: boolean;
  readonly default?: string | number | boolean;
}

/** A deployment of the server over Streamable HTTP, declared under `mcpkit.remotes`. */
export interface Remote {
  readonly url: string;
  readonly headers: readonly { name: string; description: string; required: boolean; secret: boolean }[];
}

/** What the bundle and server.json say about the package, checked once. */
export interface PackInfo {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly mcpName?: string;
  readonly private: boolean;
  /** The bin `npx <package>` runs: the one named after the package (unscoped), or the only one. */
  readonly bin?: string;
  readonly author?: { name: string; email?: string; url?: string };
  readonly license?: string;
  readonly homepage?: string;
  readonly keywords: readonly string[];
  readonly repository?: { url: string; source?: string; subfolder?: string };
  readonly node: string;
  readonly settings: readonly Setting[];
  readonly remotes: readonly Remote[];
}

/** The server.json schema version `mcpkit pack` writes: the MCP Registry's current one. */
export const SERVER_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
/** The MCPB manifest version written. */
export const MANIFEST_VERSION = '0.3';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SERVER_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const SETTING_TYPES = ['string', 'number', 'boolean', 'directory', 'file'] as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalString = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Reads and checks what pack needs from package.json; a mistake names the field and the fix. */
export function readPackInfo(pkg: PackageJson): PackInfo {
  const name = optionalString(pkg.name);
  const version = optionalString(pkg.version);
  if (!name || !version) throw new CliError('package.json needs a "name" and a "version" to pack the server');
  if (/^[\^~<>=*]|[xX*]$|\s|^latest$/.test(version))
    throw new CliError(`package.json "version" must be one exact version to pack, got "${version}"`);
  const description = optionalString(pkg.description);
  if (!description) throw new CliError('package.json needs a "description": clients show it beside the server');
  const mcpName = pkg.mcpName === undefined ? undefined : typeof pkg.mcpName === 'string' ? pkg.mcpName : JSON.stringify(pkg.mcpName);
  if (mcpName !== undefined && (!SERVER_NAME.test(mcpName) || mcpName.length > 200))
    throw new CliError(`package.json "mcpName" must be a reverse-DNS name with one slash, such as io.github.you/server, got "${mcpName}"`);
  return {
    name,
    version,
    description,
    mcpName,
    private: pkg.private === true,
    ...binOf(name, pkg.bin),
    author: authorOf(pkg.author),
    license: optionalString(pkg.license),
    homepage: optionalString(pkg.homepage),
    keywords: Array.isArray(pkg.keywords) ? pkg.keywords.filter((k): k is string => typeof k === 'string') : [],
    repository: repositoryOf(pkg.repository),
    node: optionalString(pkg.engines?.node) ?? '>=22',
    settings: settingsOf(pkg.mcpkit?.settings),
    remotes: remotesOf(pkg.mcpkit?.remotes),
  };
}

function binOf(name: string, bin: unknown): { bin?: string } {
  if (typeof bin === 'string') return { bin };
  if (!isObject(bin)) return {};
  const entries = Object.entries(bin).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  const chosen = entries.length === 1 ? entries[0] : entries.find(([key]) => key === name.replace(/^@[^/]+\//, ''));
  return chosen ? { bin: chosen[1] } : {};
}

/** "Name <email> (url)" or { name, email, url }. */
function authorOf(author: unknown): PackInfo['author'] {
  if (typeof author === 'string') {
    const match = /^\s*([^<(]+?)\s*(?:<([^>]+)>)?\s*(?:\(([^)]+)\))?\s*$/.exec(author);
    return match ? { name: match[1], ...(match[2] ? { email: match[2] } : {}), ...(match[3] ? { url: match[3] } : {}) } : undefined;
  }
  if (!isObject(author) || !optionalString(author.name)) return undefined;
  const email = optionalString(author.email);
  const url = optionalString(author.url);
  return { name: String(author.name), ...(email ? { email } : {}), ...(url ? { url } : {}) };
}

/** The repository as a browsable URL, and the forge it is on when known. */
function repositoryOf(repository: unknown): PackInfo['repository'] {
  const raw = typeof repository === 'string' ? repository : isObject(repository) ? optionalString(repository.url) : undefined;
  if (!raw) return undefined;
  const shorthand = /^(github|gitlab):([\w.-]+\/[\w.-]+)$/.exec(raw) ?? /^()([\w.-]+\/[\w.-]+)$/.exec(raw);
  const url = shorthand
    ? `https://${shorthand[1] || 'github'}.com/${shorthand[2]}`
    : raw
        .replace(/^git\+/, '')
        .replace(/^git:\/\//, 'https://')
        .replace(/\.git$/, '');
  if (!URL.canParse(url) || !/^https?:\/\//.test(url)) return undefined;
  const host = new URL(url).hostname;
  const source = host === 'github.com' ? 'github' : host === 'gitlab.com' ? 'gitlab' : undefined;
  const subfolder = isObject(repository) ? optionalString(repository.directory) : undefined;
  return { url, ...(source ? { source } : {}), ...(subfolder ? { subfolder } : {}) };
}

function settingsOf(settings: unknown): Setting[] {
  if (settings === undefined) return [];
  if (!isObject(settings)) throw new CliError('package.json "mcpkit.settings" must map environment variable names to settings');
  const keys = Object.keys(settings).map((env) => env.toLowerCase());
  const twice = keys.find((key, i) => keys.indexOf(key) !== i);
  if (twice) throw new CliError(`package.json "mcpkit.settings" names ${twice} twice, in other cases: a bundle asks for each once`);
  return Object.entries(settings).map(([env, spec]) => {
    const where = `package.json "mcpkit.settings.${env}"`;
    if (!ENV_NAME.test(env)) throw new CliError(`${where}: a setting is named by its environment variable (letters, digits, _)`);
    if (!isObject(spec) || !optionalString(spec.description)) throw new CliError(`${where} needs a "description"`);
    const type = spec.type ?? 'string';
    if (!SETTING_TYPES.includes(type as Setting['type']))
      throw new CliError(`${where}: "type" must be one of ${SETTING_TYPES.join(', ')}, got ${JSON.stringify(type)}`);
    const given = spec.default;
    if (given !== undefined && !['string', 'number', 'boolean'].includes(typeof given))
      throw new CliError(`${where}: "default" must be a string, a number or a boolean`);
    return {
      env,
      type: type as Setting['type'],
      title: optionalString(spec.title) ?? env,
      description: String(spec.description),
      required: spec.required === true,
      secret: spec.secret === true,
      ...(given === undefined ? {} : { default: given as string | number | boolean }),
    };
  });
}

function remotesOf(remotes: unknown): Remote[] {
  if (remotes === undefined) return [];
  if (!Array.isArray(remotes)) throw new CliError('package.json "mcpkit.remotes" must be a list of { "url": ... }');
  return remotes.map((remote: unknown, i) => {
    const where = `package.json "mcpkit.remotes[${i}]"`;
    const url = isObject(remote) ? optionalString(remote.url) : undefined;
    if (!url || !/^https?:\/\/[^/]/.test(url)) throw new CliError(`${where} needs an http(s) "url"`);
    const headers = isObject(remote) && isObject(remote.headers) ? remote.headers : {};
    return {
      url,
      headers: Object.entries(headers).map(([name, spec]) => ({
        name,
        description: isObject(spec) ? (optionalString(spec.description) ?? name) : name,
        required: isObject(spec) && spec.required === true,
        secret: isObject(spec) && spec.secret === true,
      })),
    };
  });
}

/**
 * The MCP Registry's description of the server (server.json, schema 2025-12-11): the npm package,
 * started over stdio with `--stdio`, when the package is published with a bin; and each remote.
 */
export function serverJson(info: PackInfo): Record<string, unknown> {
  if (!info.mcpName)
    throw new CliError('package.json needs an "mcpName" (such as io.github.you/server) to describe it for the MCP Registry');
  if (info.description.length > 100)
    throw new CliError(`package.json "description" has ${info.description.length} characters; the MCP Registry takes at most 100`);
  const unlisted = nothingToList(info);
  if (unlisted) throw new CliError(unlisted);
  const npm = !info.private && info.bin !== undefined;
  const environmentVariables = info.settings.map((s) => ({
    name: s.env,
    description: s.description,
    isRequired: s.required,
    isSecret: s.secret,
    format: s.type === 'directory' || s.type === 'file' ? 'filepath' : s.type,
    ...(s.default === undefined ? {} : { default: String(s.default) }),
  }));
  return {
    $schema: SERVER_SCHEMA,
    name: info.mcpName,
    description: info.description,
    version: info.version,
    ...(info.repository?.source ? { repository: { url: info.repository.url, source: info.repository.source, ...sub(info) } } : {}),
    ...(info.homepage ? { websiteUrl: info.homepage } : {}),
    ...(npm
      ? {
          packages: [
            {
              registryType: 'npm',
              identifier: info.name,
              version: info.version,
              runtimeHint: 'npx',
              transport: { type: 'stdio' },
              packageArguments: [{ type: 'positional', value: '--stdio' }],
              ...(environmentVariables.length > 0 ? { environmentVariables } : {}),
            },
          ],
        }
      : {}),
    ...(info.remotes.length > 0
      ? {
          remotes: info.remotes.map((r) => ({
            type: 'streamable-http',
            url: r.url,
            ...(r.headers.length > 0
              ? {
                  headers: r.headers.map((h) => ({ name: h.name, description: h.description, isRequired: h.required, isSecret: h.secret })),
                }
              : {}),
          })),
        }
      : {}),
  };
}

/**
 * Why the MCP Registry could list no way to run the server (a private package, or one without a bin, and no
 * remote), or undefined when it can list one.
 */
export function nothingToList(info: PackInfo): string | undefined {
  if ((!info.private && info.bin !== undefined) || info.remotes.length > 0) return undefined;
  return (
    'nothing to list in the MCP Registry: publish the package to npm with a "bin" named after it, or a single one ' +
    '(and without "private": true), or declare a deployment under "mcpkit.remotes"'
  );
}

const sub = (info: PackInfo) => (info.repository?.subfolder ? { subfolder: info.repository.subfolder } : {});

/** A prompt as an MCPB manifest lists it: its text with `${arguments.x}` where each argument goes. */
export interface ManifestPrompt {
  readonly name: string;
  readonly description?: string;
  readonly arguments: readonly string[];
  readonly text: string;
}

/** What the running application lists, for the manifest. */
export interface ListedSurface {
  readonly title?: string;
  readonly tools: readonly { name: string; description?: string }[];
  readonly prompts: readonly ManifestPrompt[];
  /** Prompts that have no one text with placeholders (they are generated at run time). */
  readonly promptsGenerated: boolean;
  /** The capabilities and the lists exactly as the server answers them, for the server card. */
  readonly listed: {
    readonly capabilities: Record<string, unknown>;
    readonly tools: readonly Record<string, unknown>[];
    readonly prompts: readonly Record<string, unknown>[];
    readonly resources: readonly Record<string, unknown>[];
  };
}

/** The server card's schema (SEP-2127, a draft). */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

/**
 * A server card (SEP-2127, a draft) for the deployments of `mcpkit.remotes`: server.json's identity, with the
 * capabilities, tools, prompts and resources as the server lists them, for `serverCard` of the HTTP options.
 */
export function serverCard(info: PackInfo, surface: ListedSurface): Record<string, unknown> {
  const identity = serverJson(info);
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: identity.name,
    version: identity.version,
    description: identity.description,
    ...(surface.title ? { title: surface.title } : {}),
    ...(identity.websiteUrl ? { websiteUrl: identity.websiteUrl } : {}),
    ...(identity.repository ? { repository: identity.repository } : {}),
    ...(Array.isArray(identity.remotes)
      ? {
          remotes: identity.remotes.map((remote: Record<string, unknown>) => ({
            ...remote,
            supportedProtocolVersions: [...PER_REQUEST_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS],
          })),
        }
      : {}),
    capabilities: surface.listed.capabilities,
    tools: surface.listed.tools,
    prompts: surface.listed.prompts,
    resources: surface.listed.resources,
  };
}

/** The key of a setting in the manifest's user_config. */
export const userConfigKey = (s: Setting): string => s.env.toLowerCase();

/**
 * The MCPB manifest (0.3): Node runs the entry with `--stdio`; each setting is asked of the user and
 * passed in its environment variable.
 */
export function mcpbManifest(
  info: PackInfo,
  surface: ListedSurface,
  entry: string,
  platforms: readonly string[] = ['darwin', 'win32', 'linux'],
): Record<string, unknown> {
  if (!info.author)
    throw new CliError('package.json needs an "author" (a name, or "Name <email>") for the bundle: desktop clients show who made it');
  const userConfig = Object.fromEntries(
    info.settings.map((s) => [
      userConfigKey(s),
      {
        type: s.type,
        title: s.title,
        description: s.description,
        required: s.required,
        ...(s.secret ? { sensitive: true } : {}),
        ...(s.default === undefined ? {} : { default: s.default }),
      },
    ]),
  );
  return {
    manifest_version: MANIFEST_VERSION,
    name: info.name.replace(/^@[^/]+\//, ''),
    ...(surface.title ? { display_name: surface.title } : {}),
    version: info.version,
    description: info.description,
    author: info.author,
    ...(info.repository ? { repository: { type: 'git', url: info.repository.url } } : {}),
    ...(info.homepage ? { homepage: info.homepage } : {}),
    ...(info.license ? { license: info.license } : {}),
    ...(info.keywords.length > 0 ? { keywords: info.keywords } : {}),
    server: {
      type: 'node',
      entry_point: entry,
      mcp_config: {
        command: 'node',
        args: [`\${__dirname}/${entry}`, '--stdio'],
        env: Object.fromEntries(info.settings.map((s) => [s.env, `\${user_config.${userConfigKey(s)}}`])),
      },
    },
    tools: surface.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}) })),
    ...(surface.prompts.length > 0
      ? {
          prompts: surface.prompts.map((p) => ({
            name: p.name,
            ...(p.description ? { description: p.description } : {}),
            ...(p.arguments.length > 0 ? { arguments: [...p.arguments] } : {}),
            text: p.text,
          })),
        }
      : {}),
    ...(surface.promptsGenerated ? { prompts_generated: true } : {}),
    compatibility: { platforms: [...platforms], runtimes: { node: info.node } },
    ...(info.settings.length > 0 ? { user_config: userConfig } : {}),
  };
}
