import { bm25Ranker, toToolDocument, type SearchableTool } from '../../../src/search';

const tool = (name: string, description: string, title?: string): SearchableTool => ({
  name,
  ...(title ? { title } : {}),
  description,
  inputSchema: { type: 'object' },
});

const DOCUMENTS = [
  tool('get_pull_request_reviews', 'Verdicts people gave on a pull request'),
  tool('request_reviewers', 'Ask people to look at a pull request'),
  tool('listWorkflowRuns', 'Recent CI runs'),
  tool('s3.put_object', 'Store content under a key'),
  tool('send_email', 'Compose a letter', 'Send email'),
  tool('weekly_digest', 'A summary of everything about email, email and more email'),
].map(toToolDocument);

const top = async (query: string, options: Parameters<typeof bm25Ranker>[0] = {}) => {
  const ranked = await bm25Ranker(options)(DOCUMENTS).rank(query, { limit: 3 });
  return ranked.map((r) => r.name);
};

describe('BM25 ranker', () => {
  it('finds a tool by the words of its name, whatever the case style of name and query', async () => {
    expect((await top('workflow runs'))[0]).toBe('listWorkflowRuns');
    expect((await top('listWorkflowRuns'))[0]).toBe('listWorkflowRuns');
    expect((await top('put object'))[0]).toBe('s3.put_object');
  });

  it('folds English endings, so "reviewed" finds "reviews"', async () => {
    expect((await top('who reviewed it'))[0]).toBe('get_pull_request_reviews');
    expect(await top('who reviewed it', { stem: false })).not.toContain('get_pull_request_reviews');
  });

  it('matches a word the catalog holds in another form only with prefix matching', async () => {
    expect(await top('review', { stem: false })).toEqual([]);
    expect((await top('review', { stem: false, prefix: true })).sort()).toEqual(['get_pull_request_reviews', 'request_reviewers']);
  });

  it('ranks a tool named after the query above one whose description repeats it', async () => {
    expect((await top('email')).slice(0, 2)).toEqual(['send_email', 'weekly_digest']);
  });

  it('ignores a field boosted to 0', async () => {
    expect(await top('compose letter', { boost: { description: 0 } })).toEqual([]);
    expect(await top('compose letter')).toEqual(['send_email']);
  });

  it('answers no tools for a query of function words only', async () => {
    expect(await top('the of to')).toEqual([]);
  });
});
