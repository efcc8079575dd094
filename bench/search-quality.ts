import {
  bm25Ranker,
  createToolSearchIndex,
  DEFAULT_BM25_OPTIONS,
  regexRanker,
  toToolDocument,
  type Bm25RankerOptions,
  type SearchableTool,
  type ToolRanker,
} from '../src/search';
import { CATALOG } from './fixtures/search/catalog';
import { QUERIES } from './fixtures/search/queries';

/*
 * Tool search (issue 48): how well it finds the tool a user means, and how fast, in process.
 *
 * Quality: the catalog of bench/fixtures/search (306 tools of twenty services, written for this benchmark)
 * and its 144 queries, each labelled with the tools that answer it. For each query the ranker's top 10:
 * recall@k is the share of queries with one of their tools in the top k, MRR the mean of 1/rank of the
 * first such tool (0 when none is in the top 10). BM25 runs with the defaults of src/search/bm25.ranker.ts;
 * the table under it changes one option at a time, the measurement the defaults were chosen by
 * (`--grid` prints every combination). One query moves recall by 0.7 points: the MRR of the odd and of the
 * even queries, side by side, shows which differences are larger than the choice of queries. Regex mode needs a pattern where a user wrote words: the simplest
 * honest one is the query's words, lower-cased, joined by `|` (`who reviewed my pull request` gives
 * `who|reviewed|my|pull|request`); a second line keeps only words of four letters or more. The queries
 * were written by the catalog's author, so the figures flatter every ranker alike: compare them, do not
 * quote them as what a model will see.
 *
 * Latency: the catalog copied under distinct names to 1,000 and 10,000 tools; the time to build the
 * index (text extraction, BM25, regex), then each query of the list in turn through index.search, a few
 * thousand times after a warm-up: p50 and p99 per search, without a filter and with a visibility filter
 * that hides every other tool.
 *
 *   npm run -s bench:search [-- --quick] [-- --grid]
 */

/** How one ranking mode did on the queries. */
export interface SearchQualityRow {
  readonly mode: string;
  readonly recallAt5: number;
  readonly recallAt10: number;
  readonly mrr: number;
  /** The MRR of the 1st, 3rd, 5th... query, and of the 2nd, 4th...: how far apart two halves of the queries land. */
  readonly mrrOdd: number;
  readonly mrrEven: number;
}

/** Build time and per-search latency at one catalog size. */
export interface SearchLatencyRow {
  readonly tools: number;
  readonly buildMs: number;
  readonly searches: number;
  readonly p50Us: number;
  readonly p99Us: number;
  /** With a visibility filter hiding every other tool. */
  readonly filteredP50Us: number;
  readonly filteredP99Us: number;
  readonly regexP50Us: number;
  readonly regexP99Us: number;
}

/** The figures bench/run.ts can put in its results file. */
export interface SearchQualityFigures {
  readonly catalog: number;
  readonly queries: number;
  readonly quality: readonly SearchQualityRow[];
  readonly latency: readonly SearchLatencyRow[];
}

const DOCUMENTS = CATALOG.map(toToolDocument);

async function evaluate(mode: string, ranker: ToolRanker, patternOf: (query: string) => string = (q) => q): Promise<SearchQualityRow> {
  let at5 = 0;
  let at10 = 0;
  const reciprocal = [0, 0];
  for (const [i, [query, relevant]] of QUERIES.entries()) {
    const ranked = await ranker.rank(patternOf(query), { limit: 10 });
    const rank = ranked.findIndex((r) => relevant.includes(r.name)) + 1;
    if (rank > 0) {
      reciprocal[i % 2] += 1 / rank;
      at10 += 1;
      if (rank <= 5) at5 += 1;
    }
  }
  const n = QUERIES.length;
  const odd = Math.ceil(n / 2);
  return {
    mode,
    recallAt5: at5 / n,
    recallAt10: at10 / n,
    mrr: (reciprocal[0] + reciprocal[1]) / n,
    mrrOdd: reciprocal[0] / odd,
    mrrEven: reciprocal[1] / (n - odd),
  };
}

const words = (query: string) => query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const ALL_WORDS = (query: string) => words(query).join('|');
const LONG_WORDS = (query: string) =>
  words(query)
    .filter((w) => w.length >= 4)
    .join('|');

const bm25 = (options: Bm25RankerOptions = {}) => bm25Ranker(options)(DOCUMENTS);
const FLAT = { name: 1, title: 1, description: 1, parameterNames: 1, parameterDescriptions: 1, tags: 1 };

/** One option changed at a time from the defaults: the measurement the defaults were chosen by. */
const VARIANTS: readonly (readonly [string, Bm25RankerOptions])[] = [
  ['defaults', {}],
  ['prefix on', { prefix: true }],
  ['fuzzy 0.2', { fuzzy: 0.2 }],
  ['prefix on, fuzzy 0.2', { prefix: true, fuzzy: 0.2 }],
  ['no stemming', { stem: false }],
  ['no stop words', { stopWords: false }],
  ['all boosts 1', { boost: FLAT }],
  ['name 2, title 2', { boost: { name: 2, title: 2 } }],
  ['name 3, title 2', { boost: { name: 3, title: 2 } }],
  ['name 5, title 3', { boost: { name: 5, title: 3 } }],
  ['parameters 1', { boost: { parameterNames: 1, parameterDescriptions: 1 } }],
  ['parameters 0.2', { boost: { parameterNames: 0.2, parameterDescriptions: 0.2 } }],
  ['no parameters', { boost: { parameterNames: 0, parameterDescriptions: 0 } }],
  ['tags 2', { boost: { tags: 2 } }],
  ['tags 0.5', { boost: { tags: 0.5 } }],
];

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const line = (label: string, row: SearchQualityRow) =>
  `  ${label.padEnd(34)} ${pct(row.recallAt5).padStart(8)} ${pct(row.recallAt10).padStart(9)} ${row.mrr.toFixed(3).padStart(6)}` +
  ` ${row.mrrOdd.toFixed(3).padStart(8)} ${row.mrrEven.toFixed(3).padStart(9)}`;
const HEADER = `  ${''.padEnd(34)} ${'recall@5'.padStart(8)} ${'recall@10'.padStart(9)} ${'MRR'.padStart(6)} ${'MRR odd'.padStart(8)} ${'MRR even'.padStart(9)}`;

async function quality(print: (text: string) => void): Promise<SearchQualityRow[]> {
  const rows = [
    await evaluate('bm25', bm25()),
    await evaluate('regex, all words', regexRanker()(DOCUMENTS), ALL_WORDS),
    await evaluate('regex, words of 4+ letters', regexRanker()(DOCUMENTS), LONG_WORDS),
  ];
  print(`search quality: ${CATALOG.length} tools, ${QUERIES.length} queries, top 10 of each`);
  print(HEADER);
  for (const row of rows) print(line(row.mode, row));
  print(`  BM25 defaults: ${JSON.stringify(DEFAULT_BM25_OPTIONS)}`);
  print('  BM25, one option changed from the defaults:');
  for (const [label, options] of VARIANTS) print(line(label, await evaluate(label, bm25(options))));
  return rows;
}

async function grid(print: (text: string) => void): Promise<void> {
  const boosts: readonly (readonly [string, Bm25RankerOptions['boost']])[] = [
    ['flat', FLAT],
    ['default', DEFAULT_BM25_OPTIONS.boost],
    ['name 2 title 2', { name: 2, title: 2 }],
    ['name 3 title 2', { name: 3, title: 2 }],
    ['params 1', { parameterNames: 1, parameterDescriptions: 1 }],
    ['params 0.2', { parameterNames: 0.2, parameterDescriptions: 0.2 }],
  ];
  const found: [string, SearchQualityRow][] = [];
  for (const [boostName, boost] of boosts)
    for (const prefix of [false, true])
      for (const fuzzy of [0, 0.2])
        for (const stem of [false, true])
          for (const stopWords of [false, true]) {
            const label = `${boostName}${prefix ? ' prefix' : ''}${fuzzy ? ' fuzzy' : ''}${stem ? ' stem' : ''}${stopWords ? ' stop' : ''}`;
            found.push([label, await evaluate(label, bm25({ boost, prefix, fuzzy, stem, stopWords }))]);
          }
  found.sort((a, b) => b[1].mrr - a[1].mrr || b[1].recallAt5 - a[1].recallAt5);
  print('BM25 grid, best MRR first:');
  print(HEADER);
  for (const [label, row] of found) print(line(label, row));
}

/** The catalog copied under distinct names (`r1_create_issue`...) to `size` tools. */
function replicate(size: number): SearchableTool[] {
  const tools: SearchableTool[] = [];
  for (let copy = 0; tools.length < size; copy++) {
    for (const tool of CATALOG) {
      if (tools.length === size) break;
      tools.push(copy === 0 ? tool : { ...tool, name: `r${copy}_${tool.name}` });
    }
  }
  return tools;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

async function timeSearches(count: number, search: (query: string) => Promise<unknown>): Promise<[p50: number, p99: number]> {
  for (let i = 0; i < Math.min(count, 500); i++) await search(QUERIES[i % QUERIES.length][0]);
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const query = QUERIES[i % QUERIES.length][0];
    const start = process.hrtime.bigint();
    await search(query);
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  return [percentile(times, 0.5), percentile(times, 0.99)];
}

async function latency(size: number, searches: number): Promise<SearchLatencyRow> {
  const tools = replicate(size);
  const start = process.hrtime.bigint();
  const index = await createToolSearchIndex(tools);
  const buildMs = Number(process.hrtime.bigint() - start) / 1e6;
  const visible = new Set(tools.filter((_, i) => i % 2 === 0).map((t) => t.name));
  const [p50Us, p99Us] = await timeSearches(searches, (q) => index.search(q, { limit: 5 }));
  const [filteredP50Us, filteredP99Us] = await timeSearches(searches, (q) => index.search(q, { limit: 5, visible: (n) => visible.has(n) }));
  const [regexP50Us, regexP99Us] = await timeSearches(Math.ceil(searches / 5), (q) =>
    index.search(ALL_WORDS(q), { limit: 5, mode: 'regex' }),
  );
  return { tools: size, buildMs, searches, p50Us, p99Us, filteredP50Us, filteredP99Us, regexP50Us, regexP99Us };
}

/** Measures search quality and latency, prints them, and answers the figures. */
export async function searchQuality(options: { quick?: boolean; grid?: boolean } = {}): Promise<SearchQualityFigures> {
  const print = (text: string) => console.log(text);
  const rows = await quality(print);
  if (options.grid) await grid(print);
  const searches = options.quick ? 500 : 3000;
  const latencyRows = [await latency(1000, searches), await latency(10_000, searches)];
  const us = (x: number) => `${x.toFixed(0)} µs`.padStart(9);
  print(`search latency in process (index.search, limit 5; ${searches} searches, regex ${Math.ceil(searches / 5)}, after a warm-up)`);
  print(
    `  ${'tools'.padStart(6)} ${'build'.padStart(9)} ${'bm25 p50'.padStart(9)} ${'p99'.padStart(9)} ${'filt p50'.padStart(9)} ${'p99'.padStart(9)} ${'regex p50'.padStart(9)} ${'p99'.padStart(9)}`,
  );
  for (const r of latencyRows) {
    print(
      `  ${String(r.tools).padStart(6)} ${`${r.buildMs.toFixed(0)} ms`.padStart(9)} ${us(r.p50Us)} ${us(r.p99Us)} ${us(r.filteredP50Us)} ${us(r.filteredP99Us)} ${us(r.regexP50Us)} ${us(r.regexP99Us)}`,
    );
  }
  return { catalog: CATALOG.length, queries: QUERIES.length, quality: rows, latency: latencyRows };
}

function fail(error: unknown): never {
  console.error(error);
  process.exit(1);
}

if (require.main === module) {
  searchQuality({ quick: process.argv.includes('--quick'), grid: process.argv.includes('--grid') }).then(() => undefined, fail);
}
