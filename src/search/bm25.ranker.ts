import type MiniSearch from 'minisearch';
import { byScore, type RankedTool, type RankOptions, type SearchableTool, type ToolRanker, toolText } from './searchable-tool';

/** How much a word found in each field counts: a tool's name and title say what it is more than its parameters. */
const BOOST = { name: 3, title: 2, tags: 1.5, description: 1, params: 0.7 };
const FIELDS = Object.keys(BOOST);

/**
 * Words too common to tell tools apart: left out of the index and of queries. Kept, they match nearly
 * every description, and a query then scores the whole catalog (20 ms a search at 10,000 tools).
 */
const STOP_WORDS = new Set(
  'a an and are as at be by for from has have i in is it its me my of on or our so that the their them there these this those to us was we were what when where which who will with you your'.split(
    ' ',
  ),
);

function term(word: string): string | null {
  const lower = word.toLowerCase();
  return STOP_WORDS.has(lower) ? null : lower;
}

/**
 * Ranks by BM25 (MiniSearch's BM25+) over names, titles, descriptions, parameter names and
 * descriptions, and tags. A query word also matches the words it begins (`transf` finds `transfer`)
 * and, from five letters, words one edit away (`transfers`).
 */
export function bm25Ranker(tools: readonly SearchableTool[]): ToolRanker {
  const index = new (miniSearch())<{ id: string }>({
    fields: FIELDS,
    processTerm: term,
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
