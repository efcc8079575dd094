import {
  createToolSearchIndex,
  ToolAlreadyIndexedError,
  type RankOptions,
  type SearchableTool,
  type ToolDocument,
  type ToolRanker,
} from '../../../src/search';

/** A tool with a description and string parameters, tagged. */
function tool(name: string, description: string, params: Record<string, string> = {}, tags: string[] = []): SearchableTool {
  const properties = Object.fromEntries(Object.entries(params).map(([p, d]) => [p, { type: 'string', description: d }]));
  return { name, description, inputSchema: { type: 'object', properties }, tags };
}

const CATALOG: SearchableTool[] = [
  tool('create_issue', 'Open a new issue in a repository', { title: 'Short summary' }, ['github']),
  tool('list_issues', 'Issues of a repository', { state: 'open or closed' }, ['github']),
  tool('post_message', 'Send a message to a channel', { channel: 'Where to post' }, ['slack']),
  tool('set_status', 'Change your status text', { emoji: 'Emoji shown next to your name' }, ['slack']),
  tool('run_query', 'Run SQL on the database', { sql: 'The statement; use EXPLAIN to see the query plan' }, ['postgres']),
];

const names = (hits: readonly { tool: { name: string } }[]) => hits.map((h) => h.tool.name);

describe('tool search index', () => {
  it('finds a tool by a word only its parameters carry', async () => {
    const index = await createToolSearchIndex(CATALOG);
    expect(names(await index.search('explain plan'))).toEqual(['run_query']);
  });

  it('answers full definitions in the tools/list shape, without the tags', async () => {
    const index = await createToolSearchIndex(CATALOG);
    const [hit] = await index.search('emoji');
    expect(hit.tool).toEqual({
      name: 'set_status',
      description: 'Change your status text',
      inputSchema: { type: 'object', properties: { emoji: { type: 'string', description: 'Emoji shown next to your name' } } },
    });
    expect(hit.score).toBeGreaterThan(0);
  });

  it('ranks only the tools the caller may see, and fills the limit from them', async () => {
    const many = Array.from({ length: 30 }, (_, i) => tool(`report_${String(i).padStart(2, '0')}`, 'Build a sales report'));
    const index = await createToolSearchIndex(many);
    const visible = (name: string) => Number(name.slice(-2)) % 3 === 0;
    const found = names(await index.search('sales report', { limit: 5, visible }));
    expect(found).toEqual(['report_00', 'report_03', 'report_06', 'report_09', 'report_12']);
    expect(names(await index.search('sales report', { limit: 5, visible: () => false }))).toEqual([]);
  });

  it('keeps only the tools carrying one of the given tags', async () => {
    const index = await createToolSearchIndex(CATALOG);
    expect(names(await index.search('message status issue', { tags: ['slack'] })).sort()).toEqual(['post_message', 'set_status']);
    expect(names(await index.search('message status issue', { tags: ['jira'] }))).toEqual([]);
  });

  it('applies the tag filter and visibility together', async () => {
    const index = await createToolSearchIndex(CATALOG);
    const hits = await index.search('message status', { tags: ['slack'], visible: (name) => name !== 'set_status' });
    expect(names(hits)).toEqual(['post_message']);
  });

  it('finds a tool by its tag as a word', async () => {
    const index = await createToolSearchIndex(CATALOG);
    expect(names(await index.search('postgres'))).toEqual(['run_query']);
  });

  it('answers no tools for an empty or blank query, in both modes', async () => {
    const index = await createToolSearchIndex(CATALOG);
    for (const query of ['', '   ', '\n\t']) {
      expect(await index.search(query)).toEqual([]);
      expect(await index.search(query, { mode: 'regex' })).toEqual([]);
    }
  });

  it('answers no tools for a limit of 0', async () => {
    const index = await createToolSearchIndex(CATALOG);
    expect(await index.search('issue', { limit: 0 })).toEqual([]);
  });

  it('forgets a removed tool, and finds a replaced one by its new text only', async () => {
    const index = await createToolSearchIndex(CATALOG);
    expect(await index.remove('post_message')).toBe(true);
    expect(await index.remove('post_message')).toBe(false);
    expect(names(await index.search('channel'))).toEqual([]);

    await index.replace(tool('set_status', 'Mark yourself away on vacation'));
    expect(names(await index.search('emoji'))).toEqual([]);
    expect(names(await index.search('vacation'))).toEqual(['set_status']);
    expect(names(await index.search('vacation', { mode: 'regex' }))).toEqual(['set_status']);
    expect(index.size).toBe(4);
  });

  it('adds a tool without a rebuild, and refuses a second tool of one name', async () => {
    const index = await createToolSearchIndex(CATALOG);
    await index.add(tool('create_invoice', 'Bill a customer'));
    expect(names(await index.search('bill customer'))).toEqual(['create_invoice']);
    await expect(index.add(tool('create_invoice', 'Again'))).rejects.toThrow(ToolAlreadyIndexedError);
    await expect(index.add(tool('create_invoice', 'Again'))).rejects.toThrow('Tool "create_invoice" is already in the search index');
    await expect(createToolSearchIndex([CATALOG[0], CATALOG[0]])).rejects.toThrow(ToolAlreadyIndexedError);
  });

  it('replaces an unknown tool by adding it', async () => {
    const index = await createToolSearchIndex(CATALOG);
    await index.replace(tool('archive_mail', 'Archive an email'));
    expect(names(await index.search('archive'))).toEqual(['archive_mail']);
  });

  it('orders equal scores by name, whatever the order tools were added in', async () => {
    const twins = ['delta', 'alpha', 'charlie', 'bravo'].map((n) => tool(`${n}_export`, 'Export the data as CSV'));
    const forward = await createToolSearchIndex(twins);
    const backward = await createToolSearchIndex([...twins].reverse());
    const expected = ['alpha_export', 'bravo_export', 'charlie_export', 'delta_export'];
    expect(names(await forward.search('csv'))).toEqual(expected);
    expect(names(await backward.search('csv'))).toEqual(expected);
    expect(names(await forward.search('csv', { mode: 'regex' }))).toEqual(expected);
  });

  it('ranks text queries with an author ranker, and still answers definitions', async () => {
    const calls: string[] = [];
    const seen: ToolDocument[] = [];
    const ranker: ToolRanker = {
      rank: async (query: string, options: RankOptions) => {
        calls.push(query);
        return seen
          .filter((d) => !options.visible || options.visible(d.name))
          .slice(0, options.limit)
          .map((d, i) => ({ name: d.name, score: 1 / (i + 1) }));
      },
      add: (document) => void seen.push(document),
      remove: () => undefined,
      replace: () => undefined,
    };
    const index = await createToolSearchIndex(CATALOG, {
      ranker: async (documents) => {
        seen.push(...documents);
        return ranker;
      },
    });
    const hits = await index.search('anything', { limit: 2, visible: (n) => n !== 'create_issue' });
    expect(names(hits)).toEqual(['list_issues', 'post_message']);
    expect(hits[0].tool.description).toBe('Issues of a repository');
    expect(calls).toEqual(['anything']);
  });
});
