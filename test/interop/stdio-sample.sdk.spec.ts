import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { connectSdkOverStdio } from '../helpers/sdk-stdio';
import { SAMPLE_MAIN } from '../helpers/paths';
import { waitFor } from '../helpers/wait-for';

/** The official SDK client drives the built notes sample over a real stdio process. */
describe('notes sample over stdio, official SDK client', () => {
  let client: Client;
  let stderr: () => string;
  const logs: LoggingMessageNotification['params'][] = [];

  beforeAll(async () => {
    ({ client, stderr } = await connectSdkOverStdio(SAMPLE_MAIN, ['--stdio', '--page-size=2']));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  });
  afterAll(() => client.close());

  it('negotiates 2025-11-25 and reports what the server holds', () => {
    expect(client.getServerVersion()).toEqual({ name: 'notes', version: '1.0.0', title: 'Notes' });
    expect(client.getServerCapabilities()).toEqual({
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } }, responses: { modes: ['task', 'immediate', 'streaming'] } },
    });
    expect(client.getInstructions()).toContain('Keeps notes');
  });

  it('pages through tools/list with opaque cursors', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      expect(page.tools.length).toBeLessThanOrEqual(2);
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(8);
    // The decorated tools, then those main.ts generates from openapi.json.
    expect(names).toEqual([
      'addNote',
      'search',
      'deleteNote',
      'reindex',
      'exportNotes',
      'count',
      'summarize',
      'archive',
      'workspaceRoots',
      'showNotes',
      'togglePin',
      'defineWord',
      'searchWords',
      'saveGlossaryTerm',
      'deleteGlossaryTerm',
    ]);
  });

  it('lists tools with schemas derived from class-validator metadata', async () => {
    const first = await client.listTools();
    const addNote = first.tools.find((t) => t.name === 'addNote')!;
    expect(addNote.inputSchema).toMatchObject({
      type: 'object',
      required: ['title', 'body'],
      properties: { title: { type: 'string', minLength: 1, maxLength: 80 }, tags: { type: 'array', items: { type: 'string' } } },
    });
    expect(addNote.outputSchema).toMatchObject({ type: 'object', required: ['id', 'uri'] });
    expect(addNote.annotations).toEqual({ idempotentHint: false, readOnlyHint: false });
  });

  it('calls a tool with DTO input and gets structured output, plus a log message', async () => {
    const result = await client.callTool({ name: 'addNote', arguments: { title: 'Interop', body: 'from the SDK', tags: ['x'] } });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({
      id: expect.stringMatching(/^note-\d+$/),
      uri: expect.stringMatching(/^notes:\/\/note-\d+$/),
    });
    expect(JSON.parse((result.content as { text: string }[])[0].text)).toEqual(result.structuredContent);
    await waitFor(() => logs.some((l) => l.data === 'adding note "Interop"'));
    expect(logs.find((l) => l.data === 'adding note "Interop"')).toEqual({ level: 'info', logger: 'notes', data: 'adding note "Interop"' });
  });

  it('answers invalid arguments with an isError result naming each field and constraint', async () => {
    const result = await client.callTool({ name: 'addNote', arguments: { title: '', body: 7 } });
    expect(result.isError).toBe(true);
    const message = (result.content as { text: string }[])[0].text;
    expect(message).toContain('title:');
    expect(message).toContain('(isLength)');
    expect(message).toContain('body:');
    expect(message).toContain('(isString)');
  });

  it('maps a ToolError to an isError result with its message', async () => {
    const result = await client.callTool({ name: 'deleteNote', arguments: { id: 'nope' } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'No note has id "nope"' }], isError: true });
  });

  it('returns content helpers (resource links) from a tool', async () => {
    const result = await client.callTool({ name: 'search', arguments: { query: 'ship', filter: { tag: 'work' } } });
    expect(result.content).toEqual([{ type: 'resource_link', uri: 'notes://note-3', name: 'Release plan', mimeType: 'text/markdown' }]);
  });

  it('reads a static resource and template resources, and lists both', async () => {
    const resources = await client.listResources();
    expect(resources.resources).toEqual([
      expect.objectContaining({ uri: 'ui://notes/table', name: 'NotesTableView', mimeType: 'text/html;profile=mcp-app' }),
      expect.objectContaining({ uri: 'notes://index', name: 'index', mimeType: 'application/json' }),
    ]);
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(['notes://{id}', 'notes://tags/{tag}{?limit}']);
    const index = await client.readResource({ uri: 'notes://index' });
    expect(JSON.parse((index.contents[0] as { text: string }).text)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 'note-1', title: 'Welcome' })]),
    );
    const note = await client.readResource({ uri: 'notes://note-2' });
    expect(note.contents).toEqual([{ uri: 'notes://note-2', mimeType: 'text/markdown', text: '- milk\n- bread' }]);
    const byTag = await client.readResource({ uri: 'notes://tags/work?limit=5' });
    expect(JSON.parse((byTag.contents[0] as { text: string }).text)).toEqual(['note-3']);
  });

  it('answers an unknown resource with -32002', async () => {
    await expect(client.readResource({ uri: 'nothing://here' })).rejects.toMatchObject({ code: -32002 });
  });

  it('gets a prompt with validated arguments', async () => {
    const prompts = await client.listPrompts();
    expect(prompts.prompts).toEqual([
      {
        name: 'summarize-note',
        title: 'Summarize a note',
        description: 'Ask the model to summarize one note',
        arguments: [
          { name: 'id', description: 'Id of the note to summarize', required: true },
          // The SDK's schema drops PromptArgument.title; the functional tests check that it is sent.
          expect.objectContaining({ name: 'style', description: 'How to summarize', required: false }),
        ],
      },
    ]);
    const prompt = await client.getPrompt({ name: 'summarize-note', arguments: { id: 'note-2', style: 'detailed' } });
    expect(prompt.messages[0]).toEqual({
      role: 'user',
      content: { type: 'text', text: 'Summarize this note (detailed):\n\n- milk\n- bread' },
    });
    expect(prompt.messages[1].role).toBe('assistant');
    await expect(client.getPrompt({ name: 'summarize-note', arguments: { id: 'note-1', style: 'epic' } })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('completes prompt arguments and template variables, using already-resolved arguments', async () => {
    const ids = await client.complete({ ref: { type: 'ref/resource', uri: 'notes://{id}' }, argument: { name: 'id', value: 'note-' } });
    expect(ids.completion.values).toEqual(expect.arrayContaining(['note-1', 'note-2', 'note-3']));
    const tags = await client.complete({
      ref: { type: 'ref/resource', uri: 'notes://tags/{tag}{?limit}' },
      argument: { name: 'tag', value: 'w' },
    });
    expect(tags.completion).toEqual({ values: ['work'], total: 1, hasMore: false });
    const longNote = await client.complete({
      ref: { type: 'ref/prompt', name: 'summarize-note' },
      argument: { name: 'style', value: '' },
      context: { arguments: { id: 'note-1' } },
    });
    expect(longNote.completion.values).toEqual(['brief', 'detailed', 'bullet-points']);
    const added = await client.callTool({ name: 'addNote', arguments: { title: 'Long', body: 'x'.repeat(100) } });
    const id = (added.structuredContent as { id: string }).id;
    const styles = await client.complete({
      ref: { type: 'ref/prompt', name: 'summarize-note' },
      argument: { name: 'style', value: '' },
      context: { arguments: { id } },
    });
    expect(styles.completion.values[0]).toBe('detailed');
  });

  it('sends progress notifications with increasing values', async () => {
    const seen: Progress[] = [];
    const result = await client.callTool({ name: 'reindex', arguments: { batches: 4, delayMs: 50 } }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    expect((result.content as { text: string }[])[0].text).toMatch(/^Re-indexed \d+ notes in 4 batches$/);
    // The SDK client handles notifications a tick after responses, so under load it may drop the last
    // progress when it arrives in the same read as the response; the order on the wire is checked below.
    expect(seen.map((p) => p.progress).slice(0, 3)).toEqual([1, 2, 3]);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen[0]).toEqual({ progress: 1, total: 4, message: 'indexed batch 1/4' });
  });

  it('filters log messages by the level set with logging/setLevel', async () => {
    await client.setLoggingLevel('info');
    const before = logs.length;
    await client.callTool({ name: 'reindex', arguments: { batches: 1, delayMs: 1 } });
    await client.callTool({ name: 'addNote', arguments: { title: 'After setLevel', body: 'b' } });
    await waitFor(() => logs.some((l) => l.data === 'adding note "After setLevel"'));
    expect(logs.slice(before).map((l) => l.level)).toEqual(['info']);
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'reindex', arguments: { batches: 1, delayMs: 1 } });
    await waitFor(() => logs.some((l) => l.level === 'debug'));
  });

  it('cancels a running tool: the handler stops (no more progress) and the server keeps serving', async () => {
    const controller = new AbortController();
    const seen: Progress[] = [];
    const call = client.callTool({ name: 'reindex', arguments: { batches: 50, delayMs: 20 } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => seen.push(p),
    });
    await waitFor(() => seen.length >= 2);
    controller.abort('user changed their mind');
    await expect(call).rejects.toThrow();
    const atCancel = seen.length;
    // stdout is ordered: progress written before the ping's answer has arrived by then. The SDK drops
    // progress for a finished request anyway, so the server's proof is that it is idle and serving.
    await expect(client.ping()).resolves.toEqual({});
    expect(seen.length).toBe(atCancel);
    expect(stderr()).not.toContain('error');
  });
});

describe('requests to the client over stdio, official SDK client', () => {
  it('gets sampling, elicitation and roots answered by the SDK client handlers', async () => {
    const { client } = await connectSdkOverStdio(SAMPLE_MAIN, ['--stdio'], { sampling: {}, elicitation: { form: {} }, roots: {} });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      model: 'stdio-model',
      content: { type: 'text', text: 'a summary' },
    }));
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///tmp/w' }] }));
    expect(await client.callTool({ name: 'summarize', arguments: { id: 'note-1' } })).toEqual({
      content: [{ type: 'text', text: 'Summary (stdio-model): a summary' }],
    });
    expect(await client.callTool({ name: 'archive', arguments: { id: 'note-1' } })).toEqual({
      content: [{ type: 'text', text: 'Kept note-1 (decline)' }],
    });
    expect(await client.callTool({ name: 'workspaceRoots', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'file:///tmp/w: file:///tmp/w' }],
    });
    await client.close();
  });
});
