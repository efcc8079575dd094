import type * as Re2 from 're2js';
import type { RE2JS } from 're2js';
import { InvalidSearchPatternError } from './invalid-search-pattern.error';
import { byScoreThenName, rankFilter, resultCount } from './ranking';
import type { ToolDocument } from './tool-document';
import type { RankOptions, RankedTool, ToolRanker } from './tool-ranker';

/** Bounds on a regular-expression search, so that one query's cost stays bounded whatever its pattern. */
export interface RegexRankerOptions {
  /** The longest pattern accepted, in characters (default 256); a longer one is an {@link InvalidSearchPatternError}. */
  readonly maxPatternLength?: number;
  /** How much of each field is searched, in characters (default 4096); text beyond it is not matched. */
  readonly maxFieldLength?: number;
}

/**
 * What a match in each field adds to a tool's score. Each weight is more than all the lower ones together, so
 * a name match outranks any mix of other fields, then title, description, parameters and tags in that order.
 */
const WEIGHTS = { name: 16, title: 8, description: 4, parameters: 2, tags: 1 } as const;
type Field = keyof typeof WEIGHTS;
const FIELDS = Object.keys(WEIGHTS) as Field[];

/**
 * A ranker for a query that is a case-insensitive regular expression, in RE2 syntax: the syntax of JavaScript's
 * without backreferences and lookaround. RE2 (re2js) matches in time linear in the text, so no pattern can
 * backtrack for seconds the way `.*.*.*x` does in a backtracking engine; the pattern's length and the text searched
 * in each field are bounded too. A tool's score is the sum of the weights of the fields that match (name, title,
 * description, parameters, tags); equal scores come in name order.
 */
export function regexRanker(options: RegexRankerOptions = {}): (documents: readonly ToolDocument[]) => ToolRanker {
  const maxPatternLength = options.maxPatternLength ?? 256;
  const maxFieldLength = options.maxFieldLength ?? 4096;
  return (documents) => new RegexRanker(documents, maxPatternLength, maxFieldLength);
}

/** Compiles a caller's pattern, case-insensitive, or throws the named error saying why it cannot. */
function compilePattern(pattern: string, maxPatternLength: number): RE2JS {
  if (pattern.length > maxPatternLength) {
    throw new InvalidSearchPatternError(pattern, `longer than ${maxPatternLength} characters`);
  }
  const { RE2JS, RE2JSSyntaxException } = re2();
  try {
    return RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    if (error instanceof RE2JSSyntaxException) throw new InvalidSearchPatternError(pattern, error.error);
    throw error;
  }
}

class RegexRanker implements ToolRanker {
  private readonly texts = new Map<string, { readonly fields: Record<Field, string>; readonly tags: readonly string[] }>();

  constructor(
    documents: readonly ToolDocument[],
    private readonly maxPatternLength: number,
    private readonly maxFieldLength: number,
  ) {
    for (const document of documents) this.add(document);
  }

  rank(query: string, options: RankOptions): readonly RankedTool[] {
    const count = resultCount(options.limit);
    if (query.trim().length === 0) return [];
    const pattern = compilePattern(query, this.maxPatternLength);
    if (count === 0) return [];
    const keep = rankFilter(options, (name) => this.texts.get(name)?.tags);
    const found: RankedTool[] = [];
    for (const [name, { fields }] of this.texts) {
      if (keep && !keep(name)) continue;
      let score = 0;
      for (const field of FIELDS) if (fields[field].length > 0 && pattern.test(fields[field])) score += WEIGHTS[field];
      if (score > 0) found.push({ name, score });
    }
    return found.sort(byScoreThenName).slice(0, count);
  }

  add(document: ToolDocument): void {
    const cap = (text: string) => text.slice(0, this.maxFieldLength);
    // Lines keep a pattern from matching across two parameters or tags: `.` does not match a line break.
    const fields: Record<Field, string> = {
      name: cap(`${document.name}\n${document.nameWords}`),
      title: cap(document.title),
      description: cap(document.description),
      parameters: cap(document.parameters.map((p) => `${p.name}\n${p.words}\n${p.description ?? ''}`).join('\n')),
      tags: cap(document.tags.join('\n')),
    };
    this.texts.set(document.name, { fields, tags: document.tags });
  }

  remove(name: string): void {
    this.texts.delete(name);
  }

  replace(document: ToolDocument): void {
    this.add(document);
  }
}

let loaded: typeof Re2 | undefined;

/** re2js, loaded by the first pattern compiled: a server without search mode starts without it. */
function re2(): typeof Re2 {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require('re2js') as typeof Re2);
}
