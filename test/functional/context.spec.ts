import { IsInt, IsOptional } from 'class-validator';
import { injectable } from 'tsyringe';
import { EmptyInput, McpContext, McpModule, Tool } from '../../src';
import { connect } from '../helpers/in-memory';
import { deferred, waitFor } from '../helpers/wait-for';

class Steps {
  @IsOptional() @IsInt() wait?: number;
}

@injectable()
class ContextTools {
  aborted: unknown[] = [];
  readonly waitStarted = deferred();

  @Tool() async progress(_: EmptyInput, ctx: McpContext) {
    await ctx.progress(1, 3);
    await ctx.progress(1, 3); // not increasing: dropped
    await ctx.progress(0.5); // decreasing: dropped
    await ctx.progress(2, 3, 'almost');
    await ctx.progress(3, 3);
    return 'done';
  }
  @Tool() async logs(_: EmptyInput, ctx: McpContext) {
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const)
      await ctx.log[level](`at ${level}`, 'test');
    await ctx.log.info({ structured: true });
    return 'ok';
  }
  @Tool() async waitForCancel(input: Steps, ctx: McpContext) {
    this.waitStarted.resolve();
    await new Promise<void>((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        this.aborted.push(ctx.signal.reason);
        resolve();
      });
      if (input.wait) setTimeout(resolve, input.wait);
    });
    return 'finished';
  }
  @Tool() async ask(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    const sampled = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 });
    const roots = await ctx.roots();
    return { answer, sampled, roots, session: ctx.session.clientInfo?.name, requestId: ctx.requestId };
  }
  @Tool() async askUrl(_: EmptyInput, ctx: McpContext) {
    return ctx.elicit({ mode: 'url', message: 'Log in', url: 'https://example.com/login', elicitationId: 'e1' });
  }
  @Tool() async askSlowly(_: EmptyInput, ctx: McpContext) {
    return ctx.roots({ timeoutMs: 50 });
  }
}

@McpModule({ providers: [ContextTools] })
class ContextModule {}

describe('McpContext (in-memory client)', () => {
  it('sends increasing progress only, tied to the progress token', async () => {
    const { app, client } = await connect(ContextModule);
    await client.request('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'tok' } });
    const progress = client.notifications.filter((n) => n.method === 'notifications/progress').map((n) => n.params);
    expect(progress).toEqual([
      { progressToken: 'tok', progress: 1, total: 3 },
      { progressToken: 'tok', progress: 2, total: 3, message: 'almost' },
      { progressToken: 'tok', progress: 3, total: 3 },
    ]);
    await client.request('tools/call', { name: 'progress', arguments: {} });
    expect(client.notifications.filter((n) => n.method === 'notifications/progress')).toHaveLength(3);
    await app.close();
  });

  it('sends every log level until a level is set, then only that level and above', async () => {
    const { app, client } = await connect(ContextModule);
    await client.request('tools/call', { name: 'logs', arguments: {} });
    expect(client.notifications.filter((n) => n.method === 'notifications/message')).toHaveLength(9);
    client.notifications.length = 0;
    await client.request('logging/setLevel', { level: 'error' });
    await client.request('tools/call', { name: 'logs', arguments: {} });
    const levels = client.notifications.map((n) => n.params?.level);
    expect(levels).toEqual(['error', 'critical', 'alert', 'emergency']);
    expect(client.notifications[0].params).toEqual({ level: 'error', logger: 'test', data: 'at error' });
    await app.close();
  });

  it('aborts the handler signal on notifications/cancelled and sends no response', async () => {
    const { app, client } = await connect(ContextModule);
    const tools = app.get(ContextTools);
    let settled = false;
    void client.request('tools/call', { name: 'waitForCancel', arguments: {} }, 'c1').then(
      () => (settled = true),
      () => (settled = true),
    );
    await tools.waitStarted.promise;
    await client.notify('notifications/cancelled', { requestId: 'c1', reason: 'no longer needed' });
    await waitFor(() => tools.aborted.length > 0, { what: 'the handler to see the abort' });
    expect(tools.aborted).toHaveLength(1);
    expect((tools.aborted[0] as Error).message).toBe('no longer needed');
    // The server answers in order: a response to c1 would have arrived before this one.
    expect(await client.request('ping')).toEqual({});
    expect(settled).toBe(false);
    await app.close();
  });

  it('sends elicitation, sampling and roots requests to the client and returns its answers', async () => {
    const { app, client } = await connect(
      ContextModule,
      {},
      {
        capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } },
        handlers: {
          'elicitation/create': (p) => ({ action: 'accept', content: { name: `asked: ${String(p.message)}` } }),
          'sampling/createMessage': () => ({ role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'm' }),
          'roots/list': () => ({ roots: [{ uri: 'file:///w', name: 'w' }] }),
        },
      },
    );
    const result = (await client.request('tools/call', { name: 'ask', arguments: {} }, 'ask-1')) as { content: { text: string }[] };
    expect(JSON.parse(result.content[0].text)).toEqual({
      answer: { action: 'accept', content: { name: 'asked: Name?' } },
      sampled: { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'm' },
      roots: [{ uri: 'file:///w', name: 'w' }],
      session: 'mcpkit-test-client',
      requestId: 'ask-1',
    });
    expect(client.serverRequests.map((r) => r.method)).toEqual(['elicitation/create', 'sampling/createMessage', 'roots/list']);
    await app.close();
  });

  it('fails clearly, without a request, when the client lacks the capability', async () => {
    const { app, client } = await connect(ContextModule, {}, { capabilities: { elicitation: { form: {} } } });
    const result = (await client.request('tools/call', { name: 'ask', arguments: {} }).catch((e) => e)) as {
      code: number;
      message: string;
    };
    // The form elicitation is answered by no handler (-32601 from the client), which the tool does not catch.
    expect(result).toMatchObject({ code: -32601 });
    await expect(client.request('tools/call', { name: 'askUrl', arguments: {} })).rejects.toMatchObject({
      code: -32600,
      message: 'The client does not support elicitation (url mode)',
    });
    await expect(client.request('tools/call', { name: 'askSlowly', arguments: {} })).rejects.toMatchObject({
      code: -32600,
      message: 'The client does not support roots',
    });
    expect(client.serverRequests.map((r) => r.method)).toEqual(['elicitation/create']);
    await app.close();
  });

  it('times out a request the client never answers and tells the client it was cancelled', async () => {
    const { app, client } = await connect(
      ContextModule,
      {},
      { capabilities: { roots: {} }, handlers: { 'roots/list': () => new Promise(() => undefined) } },
    );
    await expect(client.request('tools/call', { name: 'askSlowly', arguments: {} })).rejects.toMatchObject({ code: -32001 });
    const cancelled = await client.waitForNotification((n) => n.method === 'notifications/cancelled');
    expect(cancelled.params).toMatchObject({ requestId: client.serverRequests[0].id });
    await app.close();
  });
});
