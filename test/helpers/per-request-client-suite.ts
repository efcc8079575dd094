import { sdk2, type Sdk2Client } from './sdk2';
import { waitFor } from './wait-for';

/** How the SDK 2.x client negotiates: pinned to 2026-07-28, or probing (`auto`), which must end per-request. */
export const NEGOTIATIONS = [
  ['pinned to 2026-07-28', { mode: { pin: '2026-07-28' } }],
  ['auto', { mode: 'auto' }],
] as const;

export type Negotiation = (typeof NEGOTIATIONS)[number][1];

/** A 2.x client with the handlers MRTR input requests are dispatched to (every call is counted). */
export function perRequestClient(versionNegotiation: Negotiation, name = 'sdk2-interop') {
  const asked: { elicit: number; sample: number; roots: number } = { elicit: 0, sample: 0, roots: 0 };
  const client = new sdk2.Client(
    { name, version: '2.4.0' },
    {
      capabilities: { elicitation: {}, sampling: {}, roots: {} },
      versionNegotiation: versionNegotiation,
      inputRequired: { autoFulfill: true, maxRounds: 6 },
    },
  );
  client.setRequestHandler('elicitation/create', async () => {
    asked.elicit++;
    return { action: 'accept', content: { name: 'Alice', ok: true } };
  });
  client.setRequestHandler('sampling/createMessage', async () => {
    asked.sample++;
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };
  });
  client.setRequestHandler('roots/list', async () => {
    asked.roots++;
    return { roots: [{ uri: 'file:///work/a', name: 'a' }] };
  });
  return { client, asked };
}

export function textOf(result: { content?: unknown }): string {
  return ((result.content as { type: string; text: string }[]) ?? []).map((c) => c.text).join('');
}

/**
 * The checks every transport passes with a connected 2026-07-28 client: each primitive, multi
 * round-trip requests, progress, logging by request and cancellation. `tag` keeps the records of
 * this suite apart from others sharing the server.
 */
export function perRequestPrimitiveSuite(
  /** `wire`, when given, is every message the client's transport delivered, in order (see the progress check). */
  get: () => { client: Sdk2Client; asked: { elicit: number; sample: number; roots: number }; wire?: unknown[] },
  tag: string,
): void {
  const seen = async (t: string) =>
    JSON.parse(textOf(await get().client.callTool({ name: 'seen', arguments: { tag: t } }))) as Record<string, number | boolean>;

  it('ends up in the per-request era, with what server/discover said', () => {
    const { client } = get();
    expect(client.getProtocolEra()).toBe('modern');
    const discover = client.getDiscoverResult()!;
    expect(discover.supportedVersions).toEqual(expect.arrayContaining(['2026-07-28', '2025-11-25']));
    expect(discover.capabilities).toMatchObject({ tools: { listChanged: true }, resources: {}, prompts: {}, completions: {} });
    expect(discover.capabilities).not.toHaveProperty('tasks');
    expect(discover._meta?.['io.modelcontextprotocol/serverInfo']).toEqual({ name: 'eras-fixture', version: '2.0.0' });
  });

  it('is served as 2026-07-28, with its clientInfo from the envelope', async () => {
    const who = JSON.parse(textOf(await get().client.callTool({ name: 'whoami', arguments: {} })));
    expect(who).toEqual({ version: '2026-07-28', client: 'sdk2-interop', subject: null });
  });

  it('lists tools, resources, templates and prompts with caching hints and serverInfo', async () => {
    const { client } = get();
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'fail', 'order', 'steps', 'chatty', 'sleeper']));
    expect(tools.tools.find((t) => t.name === 'add')!.outputSchema).toMatchObject({
      type: 'object',
      properties: { total: { type: 'integer' } },
    });
    for (const list of [tools, await client.listResources(), await client.listResourceTemplates(), await client.listPrompts()]) {
      expect(list).toMatchObject({
        ttlMs: 60_000,
        cacheScope: 'public',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'eras-fixture' } },
      });
    }
    expect((await client.listResources()).resources).toEqual([expect.objectContaining({ uri: 'eras://static', name: 'staticText' })]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'eras://items/{id}' }),
    ]);
    expect((await client.listPrompts()).prompts).toEqual([
      expect.objectContaining({
        name: 'topic',
        arguments: expect.arrayContaining([expect.objectContaining({ name: 'topic', required: true })]),
      }),
    ]);
  });

  it('calls tools: text, structured and error results', async () => {
    const { client } = get();
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'héllo' } }))).toBe('echo: héllo');
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(sum.structuredContent).toEqual({ total: 42 });
    const failed = await client.callTool({ name: 'fail', arguments: {} });
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'this tool fails on purpose' }] });
  });

  it('reads a static resource and a template resource, with caching hints', async () => {
    const { client } = get();
    const stat = await client.readResource({ uri: 'eras://static' });
    expect(stat.contents).toEqual([{ uri: 'eras://static', mimeType: 'text/plain', text: 'static text' }]);
    expect(stat).toMatchObject({ ttlMs: 5_000, cacheScope: 'public' });
    const item = await client.readResource({ uri: 'eras://items/42' });
    expect(item.contents).toEqual([{ uri: 'eras://items/42', mimeType: 'text/plain', text: 'item 42' }]);
    expect(item).toMatchObject({ ttlMs: 5_000, cacheScope: 'public' });
  });

  it('gets a prompt and completes its argument', async () => {
    const { client } = get();
    const prompt = await client.getPrompt({ name: 'topic', arguments: { topic: 'tea', tone: 'dry' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Write about tea in a dry tone.' } }]);
    const done = await client.complete({ ref: { type: 'ref/prompt', name: 'topic' }, argument: { name: 'topic', value: 't' } });
    expect(done.completion.values).toEqual(['tides', 'tea', 'trains']);
  });

  it('answers elicitation, sampling and roots through multi round-trip retries; ctx.once runs once', async () => {
    const { client, asked } = get();
    const before = { ...asked };
    expect(textOf(await client.callTool({ name: 'askName', arguments: {} }))).toBe('hello Alice');
    const order = JSON.parse(textOf(await client.callTool({ name: 'order', arguments: { tag: `${tag}-order` } })));
    expect(order).toEqual({ orderId: 'order-1', confirmed: true, sampled: 'Paris', roots: ['file:///work/a'] });
    expect(asked).toEqual({ elicit: before.elicit + 2, sample: before.sample + 1, roots: before.roots + 1 });
    // One run per round (three sequential questions: four runs), the side effect once.
    expect(await seen(`${tag}-order`)).toMatchObject({ handlerRuns: 4, onceRuns: 1 });
  });

  it('sends progress on the request itself', async () => {
    const { client, wire } = get();
    const from = wire?.length ?? 0;
    const progress: unknown[] = [];
    const result = await client.callTool({ name: 'steps', arguments: { steps: 3 } }, { onprogress: (p: unknown) => void progress.push(p) });
    expect(textOf(result)).toBe('3 steps');
    const sent = [1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}` }));
    if (!wire) {
      expect(progress).toEqual(sent);
      return;
    }
    // The SDK client may drop progress it reads in the same chunk as the response (typescript-sdk#2580):
    // the order on the wire is what the server answers for, and the client sees a prefix of it.
    const after = wire.slice(from) as { method?: string; params?: Record<string, unknown>; result?: { content?: unknown } }[];
    const answer = after.findIndex((m) => m.result !== undefined && textOf(m.result) === '3 steps');
    const notices = after.flatMap((m, i) => (m.method === 'notifications/progress' ? [i] : []));
    expect(notices.map((i) => after[i].params)).toEqual(sent.map((p) => expect.objectContaining(p)));
    expect(notices.every((i) => i < answer)).toBe(true);
    expect(progress).toEqual(sent.slice(0, progress.length));
  });

  it('logs only when the request names a level, and only at or above it', async () => {
    const { client } = get();
    const logs: unknown[] = [];
    client.setNotificationHandler('notifications/message', (n: { params: unknown }) => void logs.push(n.params));
    expect(textOf(await client.callTool({ name: 'chatty', arguments: {} }))).toBe('chatty');
    expect(logs).toEqual([]);
    expect(textOf(await client.callTool({ name: 'chatty', arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': 'info' } }))).toBe(
      'chatty',
    );
    expect(logs).toEqual([
      { level: 'info', data: 'info line' },
      { level: 'error', data: 'error line' },
    ]);
  });

  it('cancels a request when the client aborts it: the handler signal aborts', async () => {
    const { client } = get();
    const t = `${tag}-cancel`;
    const aborted = new AbortController();
    const call = client.callTool({ name: 'sleeper', arguments: { tag: t } }, { signal: aborted.signal }).then(
      () => 'answered',
      () => 'rejected',
    );
    await waitFor(async () => (await seen(t)).started, { what: 'the sleeper to start' });
    aborted.abort();
    expect(await call).toBe('rejected');
    await waitFor(async () => (await seen(t)).cancelled, { what: 'the server to see the cancellation' });
    // The server goes on serving this client.
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'after' } }))).toBe('echo: after');
  });

  it('opens subscriptions/listen: acknowledged with the honoured filter, hears tools/list_changed, closes', async () => {
    const { client } = get();
    let changes = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void changes++);
    const sub = await client.listen({ toolsListChanged: true, promptsListChanged: true });
    expect(sub.honoredFilter).toEqual({ toolsListChanged: true, promptsListChanged: true });
    expect(textOf(await client.callTool({ name: 'touchTools', arguments: {} }))).toBe('touched');
    await waitFor(() => changes >= 1, { what: 'notifications/tools/list_changed on the listen stream' });
    await sub.close();
    expect(await sub.closed).toBe('local');
  });
}
