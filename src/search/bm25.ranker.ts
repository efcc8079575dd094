import type MiniSearch from 'minisearch';
import type { SearchOptions } from 'minisearch';
import { identifierWords } from './identifier-words';
import { byScoreThenName, rankFilter, resultCount } from './ranking';
import type { ToolDocument } from './tool-document';
import type { RankOptions, RankedTool, ToolRanker } from './tool-ranker';

/** The fields the BM25 ranker scores, each with its own boost. */
export type Bm25Field = 'name' | 'title' | 'description' | 'parameterNames' | 'parameterDescriptions' | 'tags';

/** How the BM25 ranker weighs fields and matches words. The defaults are the ones bench/search-quality.ts chose. */
export interface Bm25RankerOptions {
  /** A factor per field: a word found in a field with boost 2 counts twice one found in a field with boost 1; 0 ignores the field. */
  readonly boost?: Partial<Record<Bm25Field, number>>;
  /** Lets a query word match the longer words it begins (`review` finds `reviewers`), at a lower weight. */
  readonly prefix?: boolean;
  /** Lets a query word match words this fraction of its length away in edits (0.2: one edit in five letters); 0 for none. */
  readonly fuzzy?: number;
  /**
   * Drops the commonest English function words (`the`, `to`, `of`, `and`, `is`...) from queries and documents.
   * Question words and pronouns (`who`, `when`, `my`, `me`) stay: tool text uses them. On by default.
   */
  readonly stopWords?: boolean;
  /**
   * Folds common English endings (`reviewed`, `reviews`, `reviewing` to `review`) in queries and documents.
   * On by default; turn it off for a catalog not written in English.
   */
  readonly stem?: boolean;
}

/** The defaults, chosen by bench/search-quality.ts over its catalog and queries (see its output). */
export const DEFAULT_BM25_OPTIONS: Readonly<Required<Bm25RankerOptions>> = Object.freeze({
  boost: Object.freeze({ name: 1.5, title: 1.5, description: 1, parameterNames: 0.5, parameterDescriptions: 0.5, tags: 1 }),
  prefix: false,
  fuzzy: 0,
  stopWords: true,
  stem: true,
});

const FIELDS: readonly Bm25Field[] = ['name', 'title', 'description', 'parameterNames', 'parameterDescriptions', 'tags'];

/**
 * Words nearly every description holds: they tell no tool from another, and a query holding one would score
 * every tool (at 10,000 tools, a search with them takes ten times as long; see bench/search-quality.ts).
 */
// prettier-ignore
const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'from', 'in', 'into', 'is', 'it', 'its', 'of', 'on', 'or',
  'so', 'than', 'that', 'the', 'then', 'these', 'this', 'those', 'to', 'was', 'were', 'with',
]);

/** Strips the commonest English endings, then a final `e`, so that `create`, `creates`, `created` and `creating` meet. */
function stemWord(word: string): string {
  if (word.length <= 4) return word;
  let stem = word;
  if (stem.endsWith('ies')) stem = `${stem.slice(0, -3)}y`;
  else if (/(?:ss|us|is)$/.test(stem)) return stem;
  else if (/(?:sses|xes|ches|shes)$/.test(stem)) stem = stem.slice(0, -2);
  else if (stem.endsWith('ing') && stem.length > 5) stem = stem.slice(0, -3);
  else if (stem.endsWith('ed')) stem = stem.slice(0, -2);
  else if (stem.endsWith('s')) stem = stem.slice(0, -1);
  return stem.length > 3 && stem.endsWith('e') ? stem.slice(0, -1) : stem;
}

const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}]+/u;

function fieldText(document: ToolDocument, field: string): string {
  switch (field) {
    case 'id':
      return document.name;
    case 'name':
      return document.nameWords;
    case 'title':
      return document.title;
    case 'description':
      return document.description;
    case 'parameterNames':
      return document.parameters.map((p) => p.words).join('\n');
    case 'parameterDescriptions':
      return document.parameters.map((p) => p.description ?? '').join('\n');
    case 'tags':
      return document.tags.join('\n');
    default:
      return '';
  }
}

/**
 * A ranker scoring tools by BM25+ (minisearch) over the words of their name, title, description, parameter names
 * and descriptions, and tags, each field with its boost. A query's words are OR-ed: a tool matching more of
 * them scores higher. A query word in camelCase or snake_case also counts as its words.
 */
export function bm25Ranker(options: Bm25RankerOptions = {}): (documents: readonly ToolDocument[]) => ToolRanker {
  const settings = { ...DEFAULT_BM25_OPTIONS, ...options, boost: { ...DEFAULT_BM25_OPTIONS.boost, ...options.boost } };
  const processTerm = (term: string): string | null => {
    const word = term.toLowerCase();
    if (word.length === 0 || (settings.stopWords && STOP_WORDS.has(word))) return null;
    return settings.stem ? stemWord(word) : word;
  };
  const searchOptions: SearchOptions = {
    // minisearch reads a boost of 0 as 1: a field boosted to 0 is left out of the search instead.
    fields: FIELDS.filter((field) => (settings.boost[field] ?? 1) > 0),
    boost: settings.boost,
    prefix: settings.prefix,
    fuzzy: settings.fuzzy > 0 ? settings.fuzzy : false,
    combineWith: 'OR',
    tokenize: (query) =>
      query.split(SPACE_OR_PUNCTUATION).flatMap((token) => {
        const words = identifierWords(token);
        return words.length > 1 ? [token, ...words] : [token];
      }),
  };
  return (documents) => new Bm25Ranker(documents, processTerm, searchOptions);
}

class Bm25Ranker implements ToolRanker {
  private readonly index: MiniSearch<ToolDocument>;
  private readonly tags = new Map<string, readonly string[]>();

  constructor(documents: readonly ToolDocument[], processTerm: (term: string) => string | null, searchOptions: SearchOptions) {
    this.index = new (miniSearch())<ToolDocument>({
      idField: 'id',
      fields: [...FIELDS],
      extractField: fieldText,
      processTerm,
      searchOptions,
    });
    for (const document of documents) this.add(document);
  }

  rank(query: string, options: RankOptions): readonly RankedTool[] {
    const count = resultCount(options.limit);
    if (count === 0 || query.trim().length === 0) return [];
    const keep = rankFilter(options, (name) => this.tags.get(name));
    const found = this.index.search(query, keep ? { filter: (result) => keep(result.id as string) } : {});
    return found
      .map((result) => ({ name: result.id as string, score: result.score }))
      .sort(byScoreThenName)
      .slice(0, count);
  }

  add(document: ToolDocument): void {
    this.index.add(document);
    this.tags.set(document.name, document.tags);
  }

  remove(name: string): void {
    if (!this.index.has(name)) return;
    this.index.discard(name);
    this.tags.delete(name);
  }

  replace(document: ToolDocument): void {
    this.remove(document.name);
    this.add(document);
  }
}

let loaded: typeof MiniSearch | undefined;

/** MiniSearch, loaded by the first BM25 index: a server without search mode starts without it. */
function miniSearch(): typeof MiniSearch {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require('minisearch') as typeof MiniSearch);
}
