export { bm25Ranker } from './bm25.ranker';
export { InvalidSearchPatternError, MAX_PATTERN_CHARS, regexRanker } from './regex.ranker';
export type { RankedTool, RankOptions, SearchableTool, ToolRanker, ToolRankerFactory } from './searchable-tool';
