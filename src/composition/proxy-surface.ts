import type { CompletionContext, McpContext } from '../context/mcp-context';
import type { PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition } from '../mcp/mcp-types';
import type { Contribution } from '../registry/contribution';
import { deepFreeze } from '../registry/definition-utils';
import type {
  CompleterDescriptor,
  HandlerAccess,
  HandlerKind,
  PromptDescriptor,
  ResourceDescriptor,
  TemplateDescriptor,
  ToolDescriptor,
} from '../registry/descriptors';
import { UriTemplate } from '../registry/uri-template';
import { prefixedName, prefixedUri, unprefixedUri } from './mount';

/** What the proxy needs of an MCP client connected to the remote server. */
export interface RemoteCalls {
  /** Sends a request on behalf of `ctx`: its signal cancels it, its progress token receives progress. */
  call(method: string, params: Record<string, unknown>, ctx: McpContext): Promise<unknown>;
  /** Subscribes to the remote resource `uri` (once), so that its updates reach this server's subscribers. */
  watch(uri: string): Promise<void>;
}

/** The remote server's lists, as last fetched. */
export interface RemoteLists {
  tools: ToolDefinition[];
  resources: ResourceDefinition[];
  templates: ResourceTemplateDefinition[];
  prompts: PromptDefinition[];
  /** The remote server answers completion/complete. */
  completions: boolean;
}

/**
 * The remote server's surface as descriptors under a prefix: names and URIs rewritten like a mount,
 * every handler a request to the remote server. Arguments are not validated here (the remote server
 * validates its own); results pass through (resource contents get the prefixed URI back).
 */
export function proxiedContribution(
  prefix: string,
  given: RemoteLists,
  remote: RemoteCalls,
  skip: (what: string, error: unknown) => void,
): Contribution {
  const where = (what: string) => `${what} (proxied at "${prefix}")`;
  const lists = usableLists(given, skip);
  const tools = lists.tools.map((t): ToolDescriptor => {
    const name = prefixedName(prefix, t.name);
    // The remote call is one request. A tool the remote server may run as a task ('optional') may run as a
    // task here (this server's task runs the call); one that must ('required') is not offered as a task.
    const { execution, ...rest } = t as ToolDefinition & { execution?: { taskSupport?: unknown } };
    const optional = execution?.taskSupport === 'optional';
    return {
      ...ref('tool', where(`"${t.name}"`), name, false, ([args, ctx]) =>
        remote.call('tools/call', { name: t.name, arguments: args ?? {} }, ctx as McpContext),
      ),
      name,
      definition: deepFreeze({ ...rest, name, ...(optional ? { execution: { taskSupport: 'optional' } } : {}) }),
      taskSupport: optional ? 'optional' : 'forbidden',
      streaming: false,
    };
  });
  const resources = lists.resources.map((r): ResourceDescriptor => {
    const uri = prefixedUri(prefix, r.uri);
    const read = async ([ctx]: unknown[]) => withUris(await remote.call('resources/read', { uri: r.uri }, ctx as McpContext), r.uri, uri);
    return {
      ...ref('resource', where(`resource ${r.uri}`), r.name, true, read),
      uri,
      definition: deepFreeze({ ...r, uri, name: prefixedName(prefix, r.name) }),
      watch: () => remote.watch(r.uri),
    };
  });
  const templates: TemplateDescriptor[] = [];
  for (const t of lists.templates) {
    let template: UriTemplate, remoteTemplate: UriTemplate;
    try {
      remoteTemplate = new UriTemplate(t.uriTemplate);
      template = new UriTemplate(prefixedUri(prefix, t.uriTemplate));
    } catch (error) {
      skip(`resource template ${t.uriTemplate}`, error);
      continue;
    }
    const read = async ([variables, ctx]: unknown[]) => {
      const remoteUri = remoteTemplate.expand(variables as Record<string, string>);
      return withUris(
        await remote.call('resources/read', { uri: remoteUri }, ctx as McpContext),
        remoteUri,
        template.expand(variables as Record<string, string>),
      );
    };
    const completers = lists.completions
      ? completersFor(template.variableNames, { type: 'ref/resource', uri: t.uriTemplate }, remote, where(`template ${t.uriTemplate}`))
      : new Map();
    const watch = (uri: string) => remote.watch(unprefixedUri(prefix, uri));
    templates.push({
      ...ref('resource', where(`template ${t.uriTemplate}`), t.name, false, read),
      template,
      definition: deepFreeze({ ...t, uriTemplate: template.template, name: prefixedName(prefix, t.name) }),
      completers,
      watch,
    });
  }
  const prompts = lists.prompts.map((p): PromptDescriptor => {
    const name = prefixedName(prefix, p.name);
    const get = ([args, ctx]: unknown[]) => remote.call('prompts/get', { name: p.name, arguments: args ?? {} }, ctx as McpContext);
    const argNames = (p.arguments ?? []).map((a) => a.name);
    const completers = lists.completions
      ? completersFor(argNames, { type: 'ref/prompt', name: p.name }, remote, where(`prompt ${p.name}`))
      : new Map();
    return { ...ref('prompt', where(`prompt ${p.name}`), name, false, get), name, definition: deepFreeze({ ...p, name }), completers };
  });
  return { tools, resources, templates, prompts, uniqueResourceNames: false };
}

const isName = (v: unknown, max = 512) => typeof v === 'string' && v.length > 0 && v.length <= max;
const REMOTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * What a remote server listed that can be served: definitions of the wrong shape, and repeats of a
 * name or URI already listed, are skipped (and reported) rather than failing the whole surface.
 */
function usableLists(lists: RemoteLists, skip: (what: string, error: unknown) => void): RemoteLists {
  const keep = <T>(
    items: readonly unknown[],
    kind: string,
    key: (x: Record<string, unknown>) => unknown,
    valid: (x: Record<string, unknown>) => boolean,
  ): T[] => {
    const seen = new Set<unknown>();
    return items.filter((x) => {
      const ok = isRecord(x) && valid(x) && !seen.has(key(x));
      if (ok) seen.add(key(x));
      else
        skip(
          `${kind} ${JSON.stringify(x)?.slice(0, 120)}`,
          new Error(isRecord(x) && seen.has(key(x)) ? 'listed twice' : 'not a valid definition'),
        );
      return ok;
    }) as T[];
  };
  const args = (a: unknown) => a === undefined || (Array.isArray(a) && a.every((x) => isRecord(x) && isName(x.name)));
  return {
    tools: keep(
      lists.tools,
      'tool',
      (t) => t.name,
      (t) => isName(t.name, 128) && isRecord(t.inputSchema),
    ),
    resources: keep(
      lists.resources,
      'resource',
      (r) => r.uri,
      (r) => isName(r.uri, 8192) && REMOTE_URI.test(r.uri as string) && isName(r.name),
    ),
    templates: keep(
      lists.templates,
      'resource template',
      (t) => t.uriTemplate,
      (t) => isName(t.uriTemplate, 8192) && REMOTE_URI.test(t.uriTemplate as string) && isName(t.name),
    ),
    prompts: keep(
      lists.prompts,
      'prompt',
      (p) => p.name,
      (p) => isName(p.name, 128) && args(p.arguments),
    ),
    completions: lists.completions,
  };
}

function completersFor(
  names: readonly string[],
  remoteRef: Record<string, unknown>,
  remote: RemoteCalls,
  where: string,
): Map<string, CompleterDescriptor> {
  return new Map(
    names.map((argument) => {
      const run = async ([value, ctx]: unknown[]) => {
        const context = (ctx as CompletionContext).arguments;
        const params = {
          ref: remoteRef,
          argument: { name: argument, value },
          ...(context && Object.keys(context).length > 0 ? { context: { arguments: context } } : {}),
        };
        return ((await remote.call('completion/complete', params, ctx as McpContext)) as { completion?: unknown }).completion;
      };
      return [argument, { ...ref('completion', `${where} completer of ${argument}`, argument, false, run), argument }];
    }),
  );
}

function ref(kind: HandlerKind, where: string, name: string, contextFirst: boolean, run: (args: unknown[]) => unknown) {
  const accessKind = kind === 'resource' && !contextFirst ? 'template' : kind;
  const access: HandlerAccess = Object.freeze({
    kind: accessKind,
    name,
    scopes: [],
    guards: [],
    public: false,
    middleware: [],
    restricted: false,
  });
  return { kind, provider: undefined, method: '', where, contextFirst, access, run };
}

/** Contents read from the remote server: those at the URI that was read carry the proxied URI instead. */
function withUris(result: unknown, remoteUri: string, localUri: string): unknown {
  const contents = (result as { contents?: unknown } | undefined)?.contents;
  if (!Array.isArray(contents)) return result;
  return {
    ...(result as object),
    contents: contents.map((c: unknown) => (isRecord(c) && c.uri === remoteUri ? { ...c, uri: localUri } : c)),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/**
 * A remote result without what describes the remote response rather than its content: a 2026-07-28
 * server's `_meta` serverInfo and caching hints (this server adds its own in that era).
 */
export function ownResult(result: Record<string, unknown>): Record<string, unknown> {
  if (typeof result !== 'object' || result === null) return result;
  const { ttlMs: _ttl, cacheScope: _scope, resultType: _type, ...rest } = result;
  const meta = rest._meta as Record<string, unknown> | undefined;
  if (meta && SERVER_INFO in meta) {
    const { [SERVER_INFO]: _info, ...others } = meta;
    if (Object.keys(others).length > 0) rest._meta = others;
    else delete rest._meta;
  }
  return rest;
}
