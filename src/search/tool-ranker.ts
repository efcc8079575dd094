import type { ToolDocument } from './tool-document';

/** What a ranking keeps: how many, and which tools the caller may see. */
export interface RankOptions {
  /** At most this many tools, counted after the filters: a caller who sees few tools still gets up to `limit` of them. */
  readonly limit: number;
  /** Keep only the tools carrying at least one of these tags (compared exactly). Absent or empty: no tag filter. */
  readonly tags?: readonly string[];
  /**
   * Keep only the tools this answers true for: the caller's visibility, the same rules as `tools/list`. It is
   * applied while ranking, so a hidden tool neither appears nor takes a place in the limit.
   */
  readonly visible?: (name: string) => boolean;
}

/** One tool a ranking found, with its score (higher is better; only the order within one ranking means anything). */
export interface RankedTool {
  readonly name: string;
  readonly score: number;
}

/**
 * Ranks tools for a query. Built once from the documents of the registry's tools, and kept up to date by
 * `add`, `remove` and `replace` as the tool list changes, never rebuilt per request. The results come best
 * first, equal scores in name order, so that the same query over the same tools always answers the same list.
 * A method may answer a promise (an embeddings ranker asks a model); the built-in rankers answer at once.
 */
export interface ToolRanker {
  /** The tools matching `query`, best first, filtered by `options` while ranking, at most `options.limit`. */
  rank(query: string, options: RankOptions): readonly RankedTool[] | Promise<readonly RankedTool[]>;
  /** Indexes one more tool; its name is not in the ranker yet. */
  add(document: ToolDocument): void | Promise<void>;
  /** Forgets a tool; a name the ranker does not hold is ignored. */
  remove(name: string): void | Promise<void>;
  /** Indexes a changed tool in place of the one of the same name. */
  replace(document: ToolDocument): void | Promise<void>;
}

/** Builds a ranker over the documents of every tool, once. */
export type ToolRankerFactory = (documents: readonly ToolDocument[]) => ToolRanker | Promise<ToolRanker>;
