import { IsBoolean, IsIn } from 'class-validator';
import { injectable } from 'tsyringe';
import { DuplicateToolNameError, EmptyInput, Field, McpContext, McpModule, Prompt, Resource, Tool } from '../../src';
import { connect } from '../helpers/in-memory';
import { waitFor } from '../helpers/wait-for';

class Confirm {
  @Field({ default: false }) @IsBoolean() ok!: boolean;
  @IsIn(['a', 'b']) choice!: string;
}

@injectable()
class Base {
  @Tool() alpha(_: EmptyInput) {
    return 'alpha';
  }
  @Tool() beta(_: EmptyInput) {
    return 'beta';
  }
  @Resource({ uri: 'x://one' }) one() {
    return 'one';
  }
  @Prompt() greet(_: EmptyInput) {
    return 'hi';
  }
  @Tool() async confirm(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicitForm('Sure?', Confirm);
    return `${answer.action}:${JSON.stringify(answer.content ?? null)}:${answer.content instanceof Confirm}`;
  }
  @Tool() async login(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicit({ mode: 'url', message: 'Log in', url: 'https://example.com/login', elicitationId: 'el-1' });
    await ctx.completeElicitation('el-1');
    return answer.action;
  }
}

@injectable()
class Extra {
  @Tool() gamma(_: EmptyInput) {
    return 'gamma';
  }
}

@injectable()
class Clashing {
  @Tool({ name: 'alpha' }) again(_: EmptyInput) {
    return 'no';
  }
}

@McpModule({ providers: [Base] })
class RuntimeModule {}

const names = (r: unknown) => (r as { tools: { name: string }[] }).tools.map((t) => t.name);

describe('runtime changes and client requests (in-memory client)', () => {
  it('hides, shows and removes primitives, with one debounced list_changed per list', async () => {
    const { app, client } = await connect(RuntimeModule);
    app.disable('tool', 'alpha');
    app.disable('tool', 'beta');
    app.enable('tool', 'beta');
    await client.waitForNotification((n) => n.method === 'notifications/tools/list_changed');
    expect(names(await client.request('tools/list'))).toEqual(['beta', 'confirm', 'login']);
    await expect(client.request('tools/call', { name: 'alpha', arguments: {} })).rejects.toMatchObject({ code: -32602 });

    expect(app.disable('resource', 'x://one')).toBe(true);
    await client.waitForNotification((n) => n.method === 'notifications/resources/list_changed');
    // Notifications arrive in order: a second tools/list_changed from the first batch would be here by now.
    expect(client.notifications.filter((n) => n.method === 'notifications/tools/list_changed')).toHaveLength(1);
    await expect(client.request('resources/read', { uri: 'x://one' })).rejects.toMatchObject({ code: -32002 });
    expect(app.removePrompt('greet')).toBe(true);
    await client.waitForNotification((n) => n.method === 'notifications/prompts/list_changed');
    expect(await client.request('prompts/list')).toEqual({ prompts: [] });
    expect(app.enable('prompt', 'greet')).toBe(false);
    expect(app.disable('tool', 'nope')).toBe(false);
    await app.close();
  });

  it('adds providers at runtime with the bootstrap checks, and tells clients', async () => {
    const { app, client } = await connect(RuntimeModule);
    app.addProviders(Extra);
    await client.waitForNotification((n) => n.method === 'notifications/tools/list_changed');
    expect(names(await client.request('tools/list'))).toContain('gamma');
    expect(await client.request('tools/call', { name: 'gamma', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'gamma' }] });
    expect(() => app.addProviders(Clashing)).toThrow(DuplicateToolNameError);
    expect(names(await client.request('tools/list'))).not.toContain('again');
    await app.close();
  });

  it('elicits a form built from a class and validates the answer into an instance', async () => {
    const answers: unknown[] = [
      { action: 'accept', content: { ok: true, choice: 'b' } },
      { action: 'decline' },
      { action: 'accept', content: { ok: 'yes', choice: 'z' } },
    ];
    const { app, client } = await connect(
      RuntimeModule,
      {},
      { capabilities: { elicitation: {} }, handlers: { 'elicitation/create': () => answers.shift() } },
    );
    expect(await client.request('tools/call', { name: 'confirm', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'accept:{"ok":true,"choice":"b"}:true' }],
    });
    expect(client.serverRequests[0].params).toEqual({
      message: 'Sure?',
      requestedSchema: {
        type: 'object',
        properties: { ok: { type: 'boolean', default: false }, choice: { type: 'string', enum: ['a', 'b'] } },
        required: ['ok', 'choice'],
      },
    });
    expect(await client.request('tools/call', { name: 'confirm', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'decline:null:false' }],
    });
    await expect(client.request('tools/call', { name: 'confirm', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('does not fit Confirm'),
    });
    await app.close();
  });

  it('elicits in URL mode and notifies completion', async () => {
    const { app, client } = await connect(
      RuntimeModule,
      {},
      { capabilities: { elicitation: { url: {} } }, handlers: { 'elicitation/create': () => ({ action: 'accept' }) } },
    );
    expect(await client.request('tools/call', { name: 'login', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'accept' }] });
    expect(client.serverRequests[0].params).toEqual({
      mode: 'url',
      message: 'Log in',
      url: 'https://example.com/login',
      elicitationId: 'el-1',
    });
    const done = await client.waitForNotification((n) => n.method === 'notifications/elicitation/complete');
    expect(done.params).toEqual({ elicitationId: 'el-1' });
    await app.close();
  });

  it('tells the application when a client says its roots changed', async () => {
    const { app, client } = await connect(RuntimeModule, {}, { capabilities: { roots: { listChanged: true } } });
    const seen: string[] = [];
    app.onRootsListChanged((session) => seen.push(session.clientInfo?.name ?? '?'));
    await client.notify('notifications/roots/list_changed');
    await waitFor(() => seen.length > 0, { what: 'the roots listener' });
    expect(seen).toEqual(['mcpkit-test-client']);
    await app.close();
  });

  it('answers resources/subscribe for known resources only, and unsubscribes', async () => {
    const { app, client } = await connect(RuntimeModule);
    expect(await client.request('resources/subscribe', { uri: 'x://one' })).toEqual({});
    await expect(client.request('resources/subscribe', { uri: 'x://nope' })).rejects.toMatchObject({ code: -32002 });
    await app.notifyResourceUpdated('x://one');
    expect((await client.waitForNotification((n) => n.method === 'notifications/resources/updated')).params).toEqual({ uri: 'x://one' });
    expect(await client.request('resources/unsubscribe', { uri: 'x://one' })).toEqual({});
    await app.notifyResourceUpdated('x://one');
    // Messages arrive in order: an update sent to this client would precede the ping's answer.
    await client.request('ping');
    expect(client.notifications.filter((n) => n.method === 'notifications/resources/updated')).toHaveLength(1);
    await app.close();
  });
});
