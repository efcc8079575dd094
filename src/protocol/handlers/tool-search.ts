import type { CallToolResult, ToolDefinition } from '../../mcp/mcp-types';
import { McpError } from '../../mcp/mcp.error';
import { InvalidDefinitionError } from '../../errors/invalid-definition.error';
import type { Registry } from '../../registry/registry';
import type { ToolDescriptor } from '../../registry/descriptors';
import {
  createToolSearchIndex,
  InvalidSearchPatternError,
  type SearchableTool,
  type ToolRankerFactory,
  type ToolSearchIndex,
} from '../../search';
import { callerOf } from '../authorizer';
import type { ListViews } from '../list-views';
import type { RequestScope } from '../request-scope';
import { echo } from '../wire';
import { deepFreeze } from '../../registry/definition-utils';
import { errorResult } from './tool-result.mapper';
import { GROUP_TTL_MS, ToolGroups } from './tool-groups';
import type { PolicyStore } from '../../contracts/policy-store';
import type { SubscriptionHub } from '../per-request/subscriptions';

/**
 * Search mode, for servers with more tools than a model should read at once: `tools/list` answers a
 * search tool and a call tool (and the tools you pin), the search tool answers the definitions of the
 * tools that fit a query, and the call tool calls one of them. Every tool stays callable by its own name.
 */
export interface ToolSearchOptions {
  /** The search tool's name. Default `search_tools`. */
  searchTool?: string;
  /** The call tool's name. Default `call_tool`. */
  callTool?: string;
  /** Tools listed beside the two, by name, to callers who may list them. */
  pinned?: readonly string[];
  /**
   * How tools are ranked: `bm25` (the default: over names, titles, descriptions, parameters and tags),
   * `regex` (the query is a case-insensitive regular expression), or a factory of your own ranker
   * (embeddings, say), given the tools each time the catalog changes.
   */
  ranker?: 'bm25' | 'regex' | ToolRankerFactory;
  /** How many tools a search answers when it does not say. Default 5; a search may ask for up to `maxLimit`. */
  limit?: number;
  /** The most tools one search answers. Default 50. */
  maxLimit?: number;
  /**
   * Groups mode: `tools/list` also answers a group tool, with which the model turns groups of tools on
   * and off, and the tools of the groups its caller turned on. A group is a tag (`@Tool({ tags })`);
   * the keys are the groups offered, the values what each is for, shown to the model.
   */
  groups?: Readonly<Record<string, string>>;
  /** The group tool's name. Default `activate_group`. */
  groupTool?: string;
  /** How long the groups a caller turned on are kept after their last change, in ms. Default a day. */
  groupTtlMs?: number;
}

/** What search mode needs from the application besides the registry. */
export interface ToolSearchEnv {
  /** Where the groups callers turned on are kept (the policy store: shared by instances on Redis). */
  readonly store: PolicyStore;
  readonly subscriptions: SubscriptionHub;
  readonly logError: (message: string, error?: unknown) => void;
}

/** Checks the `toolSearch` option where it is given: undefined when search mode is off. */
export function resolveToolSearch(option: ToolSearchOptions | boolean | undefined): ToolSearchOptions | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return {};
  const problem = toolSearchProblem(option);
  if (problem) throw new RangeError(`toolSearch: ${problem}`);
  return option;
}

function toolSearchProblem(o: ToolSearchOptions): string | undefined {
  for (const key of ['searchTool', 'callTool', 'groupTool'] as const) {
    const name = o[key];
    if (name !== undefined && (typeof name !== 'string' || name.length === 0)) return `${key} must be a non-empty string`;
  }
  if (new Set([o.searchTool ?? 'search_tools', o.callTool ?? 'call_tool', o.groupTool ?? 'activate_group']).size < 3)
    return 'searchTool, callTool and groupTool must differ';
  for (const key of ['limit', 'maxLimit', 'groupTtlMs'] as const) {
    const n = o[key];
    if (n !== undefined && (!Number.isInteger(n) || n < 1)) return `${key} must be a positive integer, not ${String(n)}`;
  }
  if (o.pinned !== undefined && (!Array.isArray(o.pinned) || !o.pinned.every((p) => typeof p === 'string')))
    return 'pinned must be an array of tool names';
  if (
    o.groups !== undefined &&
    (typeof o.groups !== 'object' || o.groups === null || Object.values(o.groups).some((about) => typeof about !== 'string'))
  )
    return 'groups must map each group (a tag) to what it is for';
  if (o.ranker !== undefined && o.ranker !== 'bm25' && o.ranker !== 'regex' && typeof o.ranker !== 'function')
    return `ranker must be 'bm25', 'regex' or a function that builds a ranker, not ${JSON.stringify(o.ranker)}`;
  return undefined;
}

/** Runs a tool found by the call tool through the pipeline of a direct call. */
export type RunTool = (tool: ToolDescriptor, name: string, args: Record<string, unknown>, scope: RequestScope) => unknown;

/** What search mode lists, for one version of the registry. */
interface Catalog {
  readonly version: number;
  /** By name. */
  readonly tools: readonly ToolDescriptor[];
  readonly searchDefinition: ToolDefinition;
  readonly callDefinition: ToolDefinition;
}

/** The search index, and the descriptors it holds (to tell what changed since). */
interface Indexed {
  readonly index: ToolSearchIndex;
  held: ReadonlyMap<string, ToolDescriptor>;
}

/**
 * The search and call tools of one application. The index is built from the registry at the first
 * search, and brought up to date at the first search after the registry changed: the tools added,
 * removed or changed since are added, removed or replaced, never the whole catalog per request. What a
 * caller may see is decided per request by the same views `tools/list` uses, and the ranker ranks only that.
 */
export class ToolSearch {
  readonly searchName: string;
  readonly callName: string;
  private readonly pinned: ReadonlySet<string>;
  private readonly limit: number;
  private readonly maxLimit: number;
  private readonly groups?: ToolGroups;
  private catalog?: Catalog;
  private indexed?: Promise<Indexed>;
  private indexedVersion?: number;

  constructor(
    private readonly options: ToolSearchOptions,
    private readonly registry: Registry,
    private readonly views: ListViews<ToolDescriptor>,
    env: ToolSearchEnv,
  ) {
    this.searchName = options.searchTool ?? 'search_tools';
    this.callName = options.callTool ?? 'call_tool';
    this.pinned = new Set(options.pinned ?? []);
    this.maxLimit = options.maxLimit ?? 50;
    this.limit = Math.min(options.limit ?? 5, this.maxLimit);
    this.groups =
      options.groups &&
      new ToolGroups(
        options.groupTool ?? 'activate_group',
        options.groups,
        env.store,
        env.subscriptions,
        options.groupTtlMs ?? GROUP_TTL_MS,
        env.logError,
      );
    const own: [string, string][] = [
      [this.searchName, 'searchTool'],
      [this.callName, 'callTool'],
    ];
    if (this.groups) own.push([this.groups.name, 'groupTool']);
    for (const [name, option] of own)
      if (registry.tool(name))
        throw new InvalidDefinitionError(
          `tool "${name}"`,
          `search mode has a tool named "${name}": rename yours, or set toolSearch.${option}`,
        );
  }

  /** True for the tools search mode adds. */
  owns(name: string): boolean {
    return name === this.searchName || name === this.callName || name === this.groups?.name;
  }

  /**
   * `tools/list` in search mode: the search and call tools (and the group tool), then the pinned tools
   * and those of the groups the caller turned on, that it may list.
   */
  async list(scope: RequestScope): Promise<{ tools: ToolDefinition[] }> {
    const catalog = this.current();
    const visible = await this.visibility(scope);
    const own = [catalog.searchDefinition, catalog.callDefinition];
    if (!this.groups) return { tools: [...own, ...this.listed(visible, (t) => this.pinned.has(t.name))] };
    const active = await this.groups.active(scope);
    const listed = this.listed(visible, (t) => this.pinned.has(t.name) || (t.tags?.some((tag) => active.has(tag)) ?? false));
    return { tools: [...own, this.groups.definition, ...listed] };
  }

  private listed(visible: (name: string) => boolean, wanted: (tool: ToolDescriptor) => boolean): ToolDefinition[] {
    return this.registry
      .toolDescriptors()
      .filter((t) => !this.owns(t.name) && wanted(t) && visible(t.name))
      .map((t) => t.definition);
  }

  /** A call of one of the tools search mode adds. */
  call(name: string, args: Record<string, unknown>, scope: RequestScope, run: RunTool): unknown {
    if (name === this.searchName) return this.search(args, scope);
    if (name === this.callName) return this.callFound(args, scope, run);
    return this.groups!.call(args, scope);
  }

  private async search(args: Record<string, unknown>, scope: RequestScope): Promise<CallToolResult> {
    const { query, tags } = args;
    if (typeof query !== 'string') return errorResult('"query" must be a string');
    if (tags !== undefined && (!Array.isArray(tags) || !tags.every((t): t is string => typeof t === 'string')))
      return errorResult('"tags" must be an array of strings');
    const limit = args.limit ?? this.limit;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > this.maxLimit)
      return errorResult(`"limit" must be an integer from 1 to ${this.maxLimit}`);
    const catalog = this.current();
    const visible = await this.visibility(scope);
    const filter = tags?.length ? tags : undefined;
    let tools: ToolDefinition[];
    if (query.trim() === '') {
      if (!filter) return errorResult('"query" must say what to look for (or give "tags" to list their tools)');
      tools = catalog.tools
        .filter((t) => visible(t.name) && t.tags?.some((tag) => filter.includes(tag)))
        .slice(0, limit)
        .map((t) => t.definition);
    } else {
      const index = await this.searchIndex();
      try {
        const mode = this.options.ranker === 'regex' ? 'regex' : 'text';
        tools = (await index.search(query, { mode, limit, tags: filter, visible })).map((hit) => hit.tool);
      } catch (error) {
        if (error instanceof InvalidSearchPatternError) return errorResult(error.message);
        throw error;
      }
    }
    const structuredContent = { tools };
    return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
  }

  private callFound(args: Record<string, unknown>, scope: RequestScope, run: RunTool): unknown {
    const { name, arguments: toolArgs = {} } = args;
    if (typeof name !== 'string') throw McpError.invalidParams(`Invalid params: ${this.callName} needs the tool's "name" (a string)`);
    if (typeof toolArgs !== 'object' || toolArgs === null || Array.isArray(toolArgs))
      throw McpError.invalidParams('Invalid params: "arguments" must be an object');
    const tool = this.owns(name) ? undefined : this.registry.tool(name);
    if (!tool) throw McpError.invalidParams(`Unknown tool: ${echo(name)}`);
    return run(tool, name, toolArgs as Record<string, unknown>, scope);
  }

  /** Which tools this request's caller may list: the view `tools/list` would answer it with. */
  private async visibility(scope: RequestScope): Promise<(name: string) => boolean> {
    const view = await this.views.view(callerOf(scope.extra));
    if (!view) return () => true;
    const names = new Set(view.items().map((t) => t.name));
    return (name) => names.has(name);
  }

  private current(): Catalog {
    const version = this.registry.version;
    if (this.catalog?.version === version) return this.catalog;
    const tools = this.searchable();
    const tags = new Set(tools.flatMap((t) => t.tags ?? []));
    this.catalog = {
      version,
      tools: [...tools].sort((a, b) => (a.name < b.name ? -1 : 1)),
      searchDefinition: this.searchDefinition(tools.length, tags),
      callDefinition: this.callDefinition(tools.some((t) => t.taskSupport !== 'forbidden')),
    };
    return this.catalog;
  }

  private searchable(): ToolDescriptor[] {
    return this.registry.toolDescriptors().filter((t) => !this.owns(t.name));
  }

  /** The index as of the registry's version now: built once, then updated with what changed (one update at a time). */
  private async searchIndex(): Promise<ToolSearchIndex> {
    const version = this.registry.version;
    if (this.indexedVersion !== version || !this.indexed) {
      this.indexedVersion = version;
      const before = this.indexed;
      this.indexed = before
        ? before.then(
            (indexed) => this.update(indexed),
            () => this.build(),
          )
        : this.build();
    }
    try {
      return (await this.indexed).index;
    } catch (error) {
      // A ranker that could not be built (an author's, say) is tried again by the next search.
      this.indexedVersion = undefined;
      throw error;
    }
  }

  private async build(): Promise<Indexed> {
    const tools = this.searchable();
    const ranker = typeof this.options.ranker === 'function' ? this.options.ranker : undefined;
    const index = await createToolSearchIndex(
      tools.map((t) => searchable(t)),
      { ranker },
    );
    return { index, held: new Map(tools.map((t) => [t.name, t])) };
  }

  private async update(indexed: Indexed): Promise<Indexed> {
    const now = new Map(this.searchable().map((t) => [t.name, t]));
    for (const name of indexed.held.keys()) if (!now.has(name)) await indexed.index.remove(name);
    for (const [name, tool] of now) {
      const held = indexed.held.get(name);
      if (held?.definition !== tool.definition || held.tags !== tool.tags) await indexed.index.replace(searchable(tool));
    }
    indexed.held = now;
    return indexed;
  }

  private searchDefinition(count: number, tags: ReadonlySet<string>): ToolDefinition {
    const regex = this.options.ranker === 'regex';
    const tagList = [...tags].sort();
    return deepFreeze<ToolDefinition>({
      name: this.searchName,
      title: 'Search tools',
      description:
        `Finds the tools of this server (${count} in all) that fit what you want to do, and answers their full definitions. ` +
        (regex
          ? 'The query is a case-insensitive regular expression over names, titles, descriptions and parameters. '
          : 'Describe the task in words. ') +
        `Then call a tool found with ${this.callName}.` +
        (tagList.length ? ` Tags: ${tagList.join(', ')}.` : ''),
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: regex ? 'A regular expression.' : 'What you want to do, in words.' },
          limit: { type: 'integer', minimum: 1, maximum: this.maxLimit, description: `How many tools to answer (default ${this.limit}).` },
          ...(tagList.length
            ? { tags: { type: 'array', items: { type: 'string', enum: tagList }, description: 'Only tools with one of these tags.' } }
            : {}),
        },
        required: ['query'],
      },
      outputSchema: {
        type: 'object',
        properties: {
          tools: { type: 'array', items: { type: 'object' }, description: 'The tools found, best first, as tools/list gives them.' },
        },
        required: ['tools'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
  }

  private callDefinition(tasks: boolean): ToolDefinition {
    return deepFreeze<ToolDefinition>({
      name: this.callName,
      title: 'Call a tool',
      description: `Calls a tool of this server by its name, with its arguments: find it first with ${this.searchName}.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The tool to call.' },
          arguments: { type: 'object', description: "The tool's arguments, as its inputSchema describes them." },
        },
        required: ['name'],
      },
      ...(tasks ? { execution: { taskSupport: 'optional' as const } } : {}),
    });
  }
}

/** A descriptor as the index takes it: its definition and tags. */
function searchable(tool: ToolDescriptor): SearchableTool {
  return tool.tags ? { ...tool.definition, tags: tool.tags } : tool.definition;
}
