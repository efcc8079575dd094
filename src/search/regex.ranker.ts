import {
  byScore,
  type RankedTool,
  type RankOptions,
  type SearchableTool,
  type ToolRanker,
  toolText,
  type ToolText,
} from './searchable-tool';

/** The longest pattern a search may give, and the most text of a field it is run against. */
export const MAX_PATTERN_CHARS = 200;
const MAX_FIELD_CHARS = 4_000;

/** A match in each field, and what it counts: a tool's name says what it is more than its parameters. */
const WEIGHT: Readonly<Record<keyof ToolText, number>> = { name: 4, title: 3, tags: 2, description: 2, params: 1 };

/** A regex-mode query that is not a regular expression, or is longer than `MAX_PATTERN_CHARS`. */
export class InvalidSearchPatternError extends Error {
  constructor(
    readonly pattern: string,
    why: string,
  ) {
    super(`Invalid search pattern: ${why}`);
    this.name = 'InvalidSearchPatternError';
  }
}

/**
 * Ranks by a case-insensitive regular expression (the query) over names, titles, descriptions,
 * parameters and tags: each field that matches adds its weight. Each field's text is bounded, so a
 * costly pattern meets a bounded input.
 */
export function regexRanker(tools: readonly SearchableTool[]): ToolRanker {
  const texts = tools.map((tool) => ({ name: tool.name, tags: new Set(tool.tags ?? []), text: bounded(toolText(tool)) }));
  return {
    rank(query: string, { limit, tags, visible }: RankOptions): RankedTool[] {
      const pattern = compile(query);
      const found: RankedTool[] = [];
      for (const tool of texts) {
        if (!visible(tool.name) || (tags && !tags.some((tag) => tool.tags.has(tag)))) continue;
        let score = 0;
        for (const field of Object.keys(WEIGHT) as (keyof ToolText)[]) if (pattern.test(tool.text[field])) score += WEIGHT[field];
        if (score > 0) found.push({ name: tool.name, score });
      }
      return found.sort(byScore).slice(0, limit);
    },
  };
}

function compile(query: string): RegExp {
  if (query.length > MAX_PATTERN_CHARS) throw new InvalidSearchPatternError(query, `longer than ${MAX_PATTERN_CHARS} characters`);
  try {
    return new RegExp(query, 'iu');
  } catch (error) {
    throw new InvalidSearchPatternError(query, (error as Error).message);
  }
}

function bounded(text: ToolText): ToolText {
  const cut = (s: string) => s.slice(0, MAX_FIELD_CHARS);
  return {
    name: cut(text.name),
    title: cut(text.title),
    description: cut(text.description),
    params: cut(text.params),
    tags: cut(text.tags),
  };
}
