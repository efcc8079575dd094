import { parseArgs } from 'node:util';
import type { ClientEra } from '../client/per-request-session';
import { CliError } from './cli-error';

/** One server `mcpkit proxy` serves: spawned over stdio, or reached over Streamable HTTP or HTTP+SSE (2024-11-05). */
export type Upstream = { prefix: string } & (
  { kind: 'stdio'; command: string; args: string[] } | { kind: 'http'; url: string } | { kind: 'sse'; url: string }
);

export interface ProxyArgs {
  upstreams: Upstream[];
  /** How clients reach the proxy: stdio, or HTTP on host:port. */
  front: { stdio: true } | { stdio: false; host: string; port: number };
  headers: Record<string, string>;
  era: ClientEra;
  name?: string;
  version?: string;
}

const ERAS: readonly string[] = ['auto', 'handshake', 'per-request'] satisfies ClientEra[];
const usage = (message: string) => new CliError(`${message} (see mcpkit proxy --help)`, 2);

/** Parses `mcpkit proxy` arguments; every mistake is a usage error (exit 2) naming it. */
export function parseProxyArgs(args: string[], env: NodeJS.ProcessEnv = process.env): ProxyArgs {
  const end = args.indexOf('--');
  const own = end < 0 ? args : args.slice(0, end);
  const command = end < 0 ? [] : args.slice(end + 1);
  let values;
  try {
    ({ values } = parseArgs({
      args: own,
      allowPositionals: false,
      strict: true,
      options: {
        http: { type: 'string' },
        stdio: { type: 'boolean' },
        host: { type: 'string' },
        prefix: { type: 'string' },
        upstream: { type: 'string', multiple: true },
        header: { type: 'string', multiple: true },
        era: { type: 'string' },
        name: { type: 'string' },
        version: { type: 'string' },
      },
    }));
  } catch (error) {
    throw usage((error as Error).message.split(/\.( |$)/)[0]);
  }
  if (end >= 0 && command.length === 0) throw usage('nothing after --: give the command of the stdio server to proxy');
  const specs = values.upstream ?? [];
  const count = specs.length + (command.length > 0 ? 1 : 0);
  if (count === 0) throw usage('no server to proxy: give its command after --, or --upstream');
  if (values.prefix !== undefined && count > 1)
    throw usage('--prefix is for a single server; with several, name each: --upstream <prefix>=<target>');

  const upstreams: Upstream[] = specs.map((spec) => parseUpstream(spec, count === 1 ? (values.prefix ?? '') : undefined));
  if (command.length > 0) {
    if (count > 1) throw usage('with several servers, give each as --upstream <prefix>=stdio:<command>, not after --');
    upstreams.push({ prefix: values.prefix ?? '', kind: 'stdio', command: command[0], args: command.slice(1) });
  }
  const prefixes = upstreams.map((u) => u.prefix);
  const twice = prefixes.find((p, i) => prefixes.indexOf(p) !== i);
  if (twice !== undefined) throw usage(`two servers under the prefix "${twice}"`);

  if (values.stdio && values.http !== undefined) throw usage('--stdio and --http exclude each other');
  const era = values.era ?? 'auto';
  if (!ERAS.includes(era)) throw usage(`--era must be one of ${ERAS.join(', ')}, got "${values.era}"`);
  const headers: Record<string, string> = {};
  for (const header of values.header ?? []) {
    const colon = header.indexOf(':');
    if (colon <= 0) throw usage(`--header must read "Name: value", got "${header}"`);
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  return {
    upstreams,
    front: values.stdio
      ? { stdio: true }
      : { stdio: false, host: values.host ?? '127.0.0.1', port: port(values.http ?? env.PORT ?? '3000') },
    headers,
    era: era as ClientEra,
    name: values.name,
    version: values.version,
  };
}

function port(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw usage(`--http must be a port number (0 picks a free one), got "${text}"`);
  return Number(text);
}

/** `[prefix=]stdio:<command line>`, `[prefix=]http(s)://…` or `[prefix=]sse:http(s)://…`; the prefix is required with several servers. */
export function parseUpstream(spec: string, single: string | undefined): Upstream {
  const named = /^([A-Za-z0-9][A-Za-z0-9_-]{0,63})=(.*)$/s.exec(spec);
  const prefix = named ? named[1] : single;
  const target = named ? named[2] : spec;
  if (prefix === undefined) throw usage(`--upstream "${spec}" needs a prefix with several servers: <prefix>=<target>`);
  const sse = /^sse:/i.test(target);
  const url = sse ? target.slice('sse:'.length) : target;
  if (/^https?:\/\//i.test(url)) {
    try {
      return { prefix, kind: sse ? 'sse' : 'http', url: new URL(url).href };
    } catch {
      throw usage(`--upstream "${spec}": not a valid URL`);
    }
  }
  if (sse) throw usage(`--upstream "${spec}": sse: takes an http(s):// URL of the event stream`);
  if (target.startsWith('stdio:')) {
    const words = splitCommandLine(target.slice('stdio:'.length));
    if (words.length === 0) throw usage(`--upstream "${spec}": no command after stdio:`);
    return { prefix, kind: 'stdio', command: words[0], args: words.slice(1) };
  }
  throw usage(`--upstream "${spec}": the target must be stdio:<command>, an http(s):// URL or sse:<http(s):// URL>`);
}

/** Splits a command line into words as a POSIX shell would for plain words, '…', "…" and \ escapes (no expansion). */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote) throw usage(`unclosed ${quote} in "${line}"`);
  if (word !== undefined) words.push(word);
  return words;
}
