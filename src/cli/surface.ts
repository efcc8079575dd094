import { McpApplication } from '../kernel/mcp-application';
import type { ClassType } from '../metadata/records';
import { McpTestClient } from '../testing/mcp-test-client';
import { SKILLS_EXTENSION } from '../skills/skill.types';
import { CliError, firstLine } from './cli-error';
import { internalsOf } from '../kernel/app-internals';
import { describePolicies } from './inspect-policies';

/**
 * A server's surface as its clients see it: exactly what initialize and the list methods answer; and,
 * from the server's side, the call policies of its handlers (which no list carries).
 */
export interface Surface {
  server: Record<string, unknown>;
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  instructions?: string;
  tools: Record<string, unknown>[];
  resources: Record<string, unknown>[];
  resourceTemplates: Record<string, unknown>[];
  prompts: Record<string, unknown>[];
  /** The skills of `skills/list` (io.modelcontextprotocol/skills), when the server declares the extension. */
  skills: Record<string, unknown>[];
  /** The call policies of each handler that has some, by "kind name" ("tool charge", "resource data://config"). */
  policies: Record<string, string[]>;
  /** Search mode, when it is on: what tools/list answers instead of the catalog, and the catalog behind it. */
  toolSearch?: SearchSurface;
}

/** Search mode as `mcpkit inspect` shows it: its tools, ranker, pinned tools and groups, and the catalog it searches. */
export interface SearchSurface {
  searchTool: string;
  callTool: string;
  groupTool?: string;
  ranker: 'bm25' | 'regex' | 'custom';
  pinned: string[];
  /** Each group offered: what it is for, and how many tools carry its tag. */
  groups: Record<string, { about: string; tools: number }>;
  /** Every tool the search tool searches, with its tags. */
  catalog: { name: string; tags: string[] }[];
}

/**
 * Builds the application without listening, connects an in-memory client, runs `use`, then closes
 * both: what `use` sees is what a real client with these capabilities would.
 */
export async function withClient<T>(
  moduleClass: ClassType,
  use: (client: McpTestClient, app: McpApplication) => Promise<T>,
  capabilities: Record<string, unknown> = {},
): Promise<T> {
  let app: McpApplication;
  try {
    app = await McpApplication.create(moduleClass);
  } catch (error) {
    // Definition mistakes name the class, the member and the fix already.
    throw new CliError(`cannot build ${moduleClass.name}: ${firstLine(error)}`);
  }
  try {
    const client = await McpTestClient.connect(app.connectInMemory(), { capabilities });
    try {
      return await use(client, app);
    } finally {
      await client.close();
    }
  } finally {
    await app.close();
  }
}

/** Reads every page of every list the server's capabilities announce. */
export async function readSurface(client: McpTestClient, app: McpApplication): Promise<Surface> {
  const init = client.initializeResult ?? {};
  const capabilities = (init.capabilities ?? {}) as Record<string, unknown>;
  const list = (capability: string, method: string, key: string) =>
    capabilities[capability] ? listAll(client, method, key) : Promise.resolve([]);
  return {
    server: (init.serverInfo ?? {}) as Record<string, unknown>,
    protocolVersion: String(init.protocolVersion),
    capabilities,
    ...(typeof init.instructions === 'string' ? { instructions: init.instructions } : {}),
    tools: await list('tools', 'tools/list', 'tools'),
    resources: await list('resources', 'resources/list', 'resources'),
    resourceTemplates: await list('resources', 'resources/templates/list', 'resourceTemplates'),
    prompts: await list('prompts', 'prompts/list', 'prompts'),
    skills: (capabilities.extensions as Record<string, unknown> | undefined)?.[SKILLS_EXTENSION]
      ? await listAll(client, 'skills/list', 'skills')
      : [],
    policies: policiesOf(app),
    ...searchOf(app),
  };
}

/** Search mode's settings and catalog, when it is on (the server's side: no list carries them). */
function searchOf(app: McpApplication): { toolSearch?: SearchSurface } {
  const { registry, options } = internalsOf(app);
  const search = options.toolSearch;
  if (!search) return {};
  const own = new Set([search.searchTool ?? 'search_tools', search.callTool ?? 'call_tool', search.groupTool ?? 'activate_group']);
  const catalog = registry
    .toolDescriptors()
    .filter((t) => !own.has(t.name))
    .map((t) => ({ name: t.name, tags: [...(t.tags ?? [])] }));
  const groups = Object.fromEntries(
    Object.entries(search.groups ?? {}).map(([group, about]) => [
      group,
      { about, tools: catalog.filter((t) => t.tags.includes(group)).length },
    ]),
  );
  return {
    toolSearch: {
      searchTool: search.searchTool ?? 'search_tools',
      callTool: search.callTool ?? 'call_tool',
      ...(search.groups ? { groupTool: search.groupTool ?? 'activate_group' } : {}),
      ranker: typeof search.ranker === 'function' ? 'custom' : (search.ranker ?? 'bm25'),
      pinned: [...(search.pinned ?? [])],
      groups,
      catalog,
    },
  };
}

/** The effective policies (the application's defaults included) of every tool, resource, template and prompt. */
function policiesOf(app: McpApplication): Record<string, string[]> {
  const { registry, policies } = internalsOf(app);
  const handlers = [
    ...registry.toolDescriptors().map((t) => [`tool ${t.name}`, t] as const),
    ...registry.resourceDescriptors().map((r) => [`resource ${r.uri}`, r] as const),
    ...registry.templateDescriptors().map((t) => [`template ${t.template.template}`, t] as const),
    ...registry.promptDescriptors().map((p) => [`prompt ${p.name}`, p] as const),
  ];
  const out: Record<string, string[]> = {};
  for (const [key, handler] of handlers) {
    const effective = policies.policiesOf(handler);
    const lines = effective ? describePolicies(effective) : [];
    if (lines.length > 0) out[key] = lines;
  }
  return out;
}

async function listAll(client: McpTestClient, method: string, key: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = (await client.request(method, cursor === undefined ? {} : { cursor })) as Record<string, unknown>;
    items.push(...((page[key] ?? []) as Record<string, unknown>[]));
    cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
  } while (cursor !== undefined);
  return items;
}
