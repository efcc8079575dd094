import type { ToolDefinition } from '../mcp/mcp-types';

/** A tool as search mode indexes it: its definition as `tools/list` gives it, and its tags. */
export interface SearchableTool extends ToolDefinition {
  readonly tags?: readonly string[];
}

/** What one search asks of a ranker. */
export interface RankOptions {
  /** The most tools to answer. */
  readonly limit: number;
  /** Only tools with one of these tags, when given. */
  readonly tags?: readonly string[];
  /** The tools this caller may see: a ranker answers no other, and fills `limit` from these. */
  readonly visible: (name: string) => boolean;
}

/** A tool a ranker found, and how well it fits (higher is better; comparable within one search only). */
export interface RankedTool {
  readonly name: string;
  readonly score: number;
}

/** Ranks the tools it was built from against a query. Built once per catalog, asked once per search. */
export interface ToolRanker {
  rank(query: string, options: RankOptions): RankedTool[];
}

/** Builds a ranker from the whole catalog: called again each time the catalog changes. */
export type ToolRankerFactory = (tools: readonly SearchableTool[]) => ToolRanker;

/** The text of a tool a ranker reads, by field. */
export interface ToolText {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** Each parameter's name (split into words) and description, nested ones included. */
  readonly params: string;
  readonly tags: string;
}

/** How deep into nested objects and arrays a tool's parameters are read. */
const PARAM_DEPTH = 3;

/** The words of an identifier: `closeAccount`, `close_account`, `close-account` and `close.account` are all "close account". */
export function words(identifier: string): string {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_.\-/:]+/g, ' ')
    .trim();
}

/** The text of a tool, by field. */
export function toolText(tool: SearchableTool): ToolText {
  const params: string[] = [];
  collectParams(tool.inputSchema, PARAM_DEPTH, params);
  const split = words(tool.name);
  return {
    // The name as written too: a model may search for it whole.
    name: split === tool.name ? split : `${tool.name} ${split}`,
    title: tool.title ?? '',
    description: tool.description ?? '',
    params: params.join('\n'),
    tags: (tool.tags ?? []).join(' '),
  };
}

function collectParams(schema: unknown, depth: number, into: string[]): void {
  if (depth === 0 || typeof schema !== 'object' || schema === null) return;
  const { properties, items } = schema as { properties?: unknown; items?: unknown };
  if (typeof properties === 'object' && properties !== null) {
    for (const [name, property] of Object.entries(properties)) {
      into.push(words(name));
      const description = (property as { description?: unknown } | null)?.description;
      if (typeof description === 'string') into.push(description);
      collectParams(property, depth - 1, into);
    }
  }
  if (items !== undefined) collectParams(items, depth - 1, into);
}

/** Best first; equal scores by name, so that the same catalog answers the same query the same way. */
export function byScore(a: RankedTool, b: RankedTool): number {
  return b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
