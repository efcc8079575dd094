export type { SearchableTool } from './searchable-tool';
export { toToolDocument, type ToolDocument, type ToolParameterText } from './tool-document';
export { identifierWords } from './identifier-words';
export type { RankOptions, RankedTool, ToolRanker, ToolRankerFactory } from './tool-ranker';
export { bm25Ranker, DEFAULT_BM25_OPTIONS, type Bm25Field, type Bm25RankerOptions } from './bm25.ranker';
export { regexRanker, type RegexRankerOptions } from './regex.ranker';
export { InvalidSearchPatternError } from './invalid-search-pattern.error';
export { ToolAlreadyIndexedError } from './tool-already-indexed.error';
export {
  createToolSearchIndex,
  type ToolSearchHit,
  type ToolSearchIndex,
  type ToolSearchIndexOptions,
  type ToolSearchMode,
  type ToolSearchOptions,
} from './tool-search.index';
