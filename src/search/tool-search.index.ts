import type { ToolDefinition } from '../mcp/mcp-types';
import { bm25Ranker } from './bm25.ranker';
import { regexRanker, type RegexRankerOptions } from './regex.ranker';
import type { SearchableTool } from './searchable-tool';
import { ToolAlreadyIndexedError } from './tool-already-indexed.error';
import { toToolDocument } from './tool-document';
import type { ToolRanker, ToolRankerFactory } from './tool-ranker';

/** `text`: the query is words, ranked by the index's ranker (BM25 unless another was given). `regex`: a regular expression. */
export type ToolSearchMode = 'text' | 'regex';

/** One search: the query's mode, how many tools, and which the caller may see. */
export interface ToolSearchOptions {
  /** How the query is read (default `text`). */
  readonly mode?: ToolSearchMode;
  /** At most this many tools (default 10), counted after the filters. */
  readonly limit?: number;
  /** Keep only the tools carrying at least one of these tags. */
  readonly tags?: readonly string[];
  /** Keep only the tools this answers true for: the caller's visibility, applied while ranking. */
  readonly visible?: (name: string) => boolean;
}

/** A tool a search found: its definition in the `tools/list` shape (without tags) and its score. */
export interface ToolSearchHit {
  readonly tool: ToolDefinition;
  readonly score: number;
}

/** How an index ranks. */
export interface ToolSearchIndexOptions {
  /** The ranker of `text` queries (default: {@link bm25Ranker} with its defaults), e.g. an author's embeddings ranker. */
  readonly ranker?: ToolRankerFactory;
  /** The bounds of `regex` queries. */
  readonly regex?: RegexRankerOptions;
}

/**
 * The tools of a registry, indexed once for search, and kept up to date as tools are added, removed or
 * changed. A search ranks only what its options let the caller see, and answers full tool definitions.
 */
export interface ToolSearchIndex {
  /** The number of tools indexed. */
  readonly size: number;
  /**
   * The tools matching `query`, best first, equal scores in name order. An empty or blank query answers no
   * tools. A `regex` query that is not a valid pattern throws an {@link InvalidSearchPatternError}.
   */
  search(query: string, options?: ToolSearchOptions): Promise<readonly ToolSearchHit[]>;
  /** Indexes one more tool; throws {@link ToolAlreadyIndexedError} when one of its name is indexed already. */
  add(tool: SearchableTool): Promise<void>;
  /** Forgets a tool; answers whether the index held it. */
  remove(name: string): Promise<boolean>;
  /** Indexes a changed tool in place of the one of its name (or as a new one when there was none). */
  replace(tool: SearchableTool): Promise<void>;
}

const DEFAULT_LIMIT = 10;

/** Builds the search index of `tools` once: the text ranker and the regex ranker over the same extracted text. */
export async function createToolSearchIndex(
  tools: Iterable<SearchableTool>,
  options: ToolSearchIndexOptions = {},
): Promise<ToolSearchIndex> {
  const list = [...tools];
  const definitions = new Map<string, ToolDefinition>();
  for (const tool of list) {
    if (definitions.has(tool.name)) throw new ToolAlreadyIndexedError(tool.name);
    definitions.set(tool.name, definitionOf(tool));
  }
  const documents = list.map(toToolDocument);
  const rankers: Record<ToolSearchMode, ToolRanker> = {
    text: await (options.ranker ?? bm25Ranker())(documents),
    regex: regexRanker(options.regex)(documents),
  };
  return new SearchIndex(definitions, rankers);
}

/** The definition a search answers: the tool without the tags only search reads. */
function definitionOf(tool: SearchableTool): ToolDefinition {
  const { tags: _tags, ...definition } = tool;
  return definition;
}

class SearchIndex implements ToolSearchIndex {
  constructor(
    private readonly definitions: Map<string, ToolDefinition>,
    private readonly rankers: Record<ToolSearchMode, ToolRanker>,
  ) {}

  get size(): number {
    return this.definitions.size;
  }

  async search(query: string, options: ToolSearchOptions = {}): Promise<readonly ToolSearchHit[]> {
    const ranked = await this.rankers[options.mode ?? 'text'].rank(query, {
      limit: options.limit ?? DEFAULT_LIMIT,
      tags: options.tags,
      visible: options.visible,
    });
    return ranked.flatMap(({ name, score }) => {
      const tool = this.definitions.get(name);
      return tool ? [{ tool, score }] : [];
    });
  }

  async add(tool: SearchableTool): Promise<void> {
    if (this.definitions.has(tool.name)) throw new ToolAlreadyIndexedError(tool.name);
    const document = toToolDocument(tool);
    for (const ranker of Object.values(this.rankers)) await ranker.add(document);
    this.definitions.set(tool.name, definitionOf(tool));
  }

  async remove(name: string): Promise<boolean> {
    if (!this.definitions.has(name)) return false;
    this.definitions.delete(name);
    for (const ranker of Object.values(this.rankers)) await ranker.remove(name);
    return true;
  }

  async replace(tool: SearchableTool): Promise<void> {
    const document = toToolDocument(tool);
    const known = this.definitions.has(tool.name);
    for (const ranker of Object.values(this.rankers)) await (known ? ranker.replace(document) : ranker.add(document));
    this.definitions.set(tool.name, definitionOf(tool));
  }
}
