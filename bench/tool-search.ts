/**
 * Search mode on a catalog of 1,000 tools (test/fixtures/tool-catalog.ts), in process over the in-memory
 * transport: the bytes a client receives from tools/list with and without search mode (and a rough token
 * estimate, a token taken as 4 bytes of JSON), and the search tool's latency at 1,000 and 10,000 tools
 * (the catalog repeated under other names), p50 and p99, with the time the first search spends building
 * the index; then the retrieval quality of the rankers on a labelled catalog (search-quality.ts). Prints
 * figures and adds them to the results file's rows; asserts nothing.
 */
import 'reflect-metadata';
import { McpApplication, McpModule } from '../src';
import { McpTestClient } from '../src/testing';
import { catalogTools } from '../test/fixtures/tool-catalog';
import { rows } from './measure';
import { searchQuality } from './search-quality';

export const SEARCH_BYTES = 'tools/list bytes, 1,000-tool catalog';
export const SEARCH_LATENCY = 'search_tools in process (BM25), latency';
export const SEARCH_QUALITY = 'search quality, labelled catalog';

@McpModule({ server: { name: 'catalog', version: '1.0.0' } })
class CatalogModule {}

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
const QUERIES = [
  'give a customer their refund back',
  'who is on call this week',
  'open a ticket for the help desk',
  'export the invoices to a spreadsheet',
  'restore a deleted file from the trash',
  'count open alerts',
  'book a meeting room',
  'archive an old repository',
  'update the price of a product',
  'delete a dns record',
];

async function catalog(copies: number, search: boolean): Promise<{ app: McpApplication; client: McpTestClient }> {
  const app = await McpApplication.create(CatalogModule, { logger: quiet, toolSearch: search });
  for (let copy = 0; copy < copies; copy++)
    for (const tool of catalogTools()) app.addTool(copy === 0 ? tool : { ...tool, name: `${tool.name}_${copy}` });
  return { app, client: await McpTestClient.connect(app.connectInMemory()) };
}

async function listBytes(search: boolean): Promise<number> {
  const { app, client } = await catalog(1, search);
  let bytes = 0;
  let cursor: string | undefined;
  do {
    const page = (await client.request('tools/list', cursor ? { cursor } : {})) as { nextCursor?: string };
    bytes += Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 1, result: page }));
    cursor = page.nextCursor;
  } while (cursor);
  await app.close();
  return bytes;
}

async function latency(copies: number, calls: number): Promise<void> {
  const { app, client } = await catalog(copies, true);
  const search = (query: string) => client.request('tools/call', { name: 'search_tools', arguments: { query } });
  let started = performance.now();
  await search(QUERIES[0]);
  const build = performance.now() - started;
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    started = performance.now();
    await search(QUERIES[i % QUERIES.length]);
    times.push(performance.now() - started);
  }
  await app.close();
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  const tools = copies * 1000;
  rows.push({
    workload: SEARCH_LATENCY,
    impl: `mcpkit, ${tools.toLocaleString('en')} tools`,
    rps: 1000 / mean,
    p50: at(0.5),
    p99: at(0.99),
    note: `first search (builds the index) ${build.toFixed(0)} ms`,
  });
  console.log(
    `  ${tools} tools: p50 ${at(0.5).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms; index built by the first search in ${build.toFixed(0)} ms`,
  );
}

/** The search rows of the bench: bytes with and without search mode, and latency at 1k and 10k tools. */
export async function toolSearchBench(quick: boolean): Promise<void> {
  console.log('\nsearch mode, 1,000-tool catalog:');
  for (const search of [false, true]) {
    const bytes = await listBytes(search);
    const tokens = Math.round(bytes / 4);
    rows.push({
      workload: SEARCH_BYTES,
      impl: search ? 'mcpkit, search mode' : 'mcpkit, every tool',
      rps: 0,
      p50: 0,
      p99: 0,
      value: bytes,
      note: `~${tokens} tokens (4 bytes a token)`,
    });
    console.log(`  tools/list ${search ? 'in search mode' : 'of every tool'}: ${bytes} bytes (~${tokens} tokens)`);
  }
  await latency(1, quick ? 500 : 3000);
  await latency(10, quick ? 200 : 1000);
  console.log('\nsearch quality:');
  const figures = await searchQuality({ quick });
  for (const q of figures.quality) {
    rows.push({
      workload: SEARCH_QUALITY,
      impl: q.mode,
      rps: 0,
      p50: 0,
      p99: 0,
      value: q.recallAt5,
      note: `${figures.catalog} tools, ${figures.queries} queries: recall@5 ${(q.recallAt5 * 100).toFixed(1)}%, recall@10 ${(q.recallAt10 * 100).toFixed(1)}%, MRR ${q.mrr.toFixed(3)}`,
    });
  }
}
