import { createToolSearchIndex, InvalidSearchPatternError, type SearchableTool } from '../../../src/search';

const CATALOG: SearchableTool[] = [
  { name: 'alpha', description: 'nothing here', inputSchema: { type: 'object', properties: { target: { description: 'a widget' } } } },
  { name: 'bravo', description: 'a widget maker', inputSchema: { type: 'object' } },
  { name: 'charlie', title: 'Widget', description: 'x', inputSchema: { type: 'object' } },
  { name: 'widget_delta', description: 'y', inputSchema: { type: 'object' } },
  { name: 'echo', description: 'z', inputSchema: { type: 'object' }, tags: ['widgets'] },
  { name: 'foxtrot', description: 'z', inputSchema: { type: 'object' } },
];

const names = (hits: readonly { tool: { name: string } }[]) => hits.map((h) => h.tool.name);

describe('regex search', () => {
  it('ranks a name match above title, description, parameters and tags, case-insensitively', async () => {
    const index = await createToolSearchIndex(CATALOG);
    expect(names(await index.search('WIDGET', { mode: 'regex' }))).toEqual(['widget_delta', 'charlie', 'bravo', 'alpha', 'echo']);
  });

  it('matches the words of a name as well as the name itself', async () => {
    const index = await createToolSearchIndex(CATALOG);
    expect(names(await index.search('widget delta', { mode: 'regex' }))).toEqual(['widget_delta']);
    expect(names(await index.search('^widget_d', { mode: 'regex' }))).toEqual(['widget_delta']);
  });

  it('keeps only visible tools while ranking', async () => {
    const index = await createToolSearchIndex(CATALOG);
    const hits = await index.search('widget', { mode: 'regex', limit: 2, visible: (n) => n !== 'widget_delta' });
    expect(names(hits)).toEqual(['charlie', 'bravo']);
  });

  it.each([
    ['(unclosed', 'missing closing )'],
    ['a{2,1}', 'invalid repeat count'],
    ['(a)\\1', 'invalid escape sequence'],
    ['(?=a)', 'invalid or unsupported Perl syntax'],
  ])('refuses the pattern %s with a named error naming it', async (pattern, problem) => {
    const index = await createToolSearchIndex(CATALOG);
    const search = index.search(pattern, { mode: 'regex' });
    await expect(search).rejects.toThrow(InvalidSearchPatternError);
    await expect(index.search(pattern, { mode: 'regex' })).rejects.toThrow(`Invalid search pattern "${pattern}": ${problem}`);
  });

  it('refuses a pattern longer than the bound', async () => {
    const index = await createToolSearchIndex(CATALOG, { regex: { maxPatternLength: 10 } });
    await expect(index.search('a'.repeat(11), { mode: 'regex' })).rejects.toThrow(
      expect.objectContaining({ name: 'InvalidSearchPatternError', problem: 'longer than 10 characters' }),
    );
  });

  it('searches only the first maxFieldLength characters of a field', async () => {
    const tail = { name: 'tail', description: `${'x'.repeat(100)} needle`, inputSchema: { type: 'object' as const } };
    const index = await createToolSearchIndex([tail], { regex: { maxFieldLength: 50 } });
    expect(await index.search('needle', { mode: 'regex' })).toEqual([]);
  });

  it('answers a pattern that backtracks catastrophically elsewhere in linear time (fails by timeout if not)', async () => {
    const long = { name: 'long', description: 'a'.repeat(4000), inputSchema: { type: 'object' as const } };
    const index = await createToolSearchIndex([long]);
    expect(await index.search('.*.*.*.*.*z', { mode: 'regex' })).toEqual([]);
    expect(await index.search('(a+)+z', { mode: 'regex' })).toEqual([]);
  });
});
