import type MiniSearch from 'minisearch';
import { byScore, type RankedTool, type RankOptions, type SearchableTool, type ToolRanker, toolText } from './searchable-tool';

/** How much a word found in each field counts: a tool's name and title say what it is more than its parameters. */
const BOOST = { name: 3, title: 2, tags: 1.5, description: 1, params: 0.7 };
const FIELDS = Object.keys(BOOST);

/**
 * Ranks by BM25 (MiniSearch's BM25+) over names, titles, descriptions, parameter names and
 * descriptions, and tags. A query word also matches the words it begins (`transf` finds `transfer`)
 * and, from five letters, words one edit away (`transfers`).
 */
export function bm25Ranker(tools: readonly SearchableTool[]): ToolRanker {
  const index = new (miniSearch())<{ id: string }>({
    fields: FIELDS,
    extractField: (document, field) => (document as unknown as Record<string, string>)[field],
    searchOptions: {
      boost: BOOST,
      prefix: (term) => term.length >= 3,
      fuzzy: (term) => (term.length >= 5 ? 1 : false),
    },
  });
  const tagsOf = new Map<string, ReadonlySet<string>>();
  index.addAll(
    tools.map((tool) => {
      tagsOf.set(tool.name, new Set(tool.tags ?? []));
      return { id: tool.name, ...toolText(tool) };
    }),
  );
  return {
    rank(query: string, { limit, tags, visible }: RankOptions): RankedTool[] {
      const found = index.search(query, {
        filter: (result) => visible(result.id as string) && (!tags || tags.some((tag) => tagsOf.get(result.id as string)?.has(tag))),
      });
      return found
        .map((result) => ({ name: result.id as string, score: result.score }))
        .sort(byScore)
        .slice(0, limit);
    },
  };
}

let loaded: typeof MiniSearch | undefined;

/** MiniSearch, loaded by the first index built: a server without search mode starts without it. */
function miniSearch(): typeof MiniSearch {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require('minisearch') as typeof MiniSearch);
}
