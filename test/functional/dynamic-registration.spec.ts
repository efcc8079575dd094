import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { injectable } from 'tsyringe';
import { z } from 'zod';
import {
  ClashingUriTemplateError,
  DuplicatePromptNameError,
  DuplicateResourceError,
  DuplicateToolNameError,
  EmptyInput,
  InvalidDefinitionError,
  McpApplication,
  Middleware,
  type CanActivate,
  type GuardContext,
  McpContext,
  McpModule,
  Prompt,
  Resource,
  Tool,
  UnknownCompletionTargetError,
} from '../../src';
import { waitFor } from '../helpers/wait-for';

@injectable()
class Decorated {
  @Tool() fixed(_: EmptyInput) {
    return 'decorated';
  }
}

@McpModule({ server: { name: 'dynamic', version: '1.0.0' }, providers: [Decorated] })
class DynamicModule {}

@injectable()
class Seeded {
  @Resource({ uri: 'static://readme', name: 'readme' }) readme() {
    return 'read me';
  }
  @Prompt() hello(_: EmptyInput) {
    return 'hello';
  }
}

/** Clients hear list_changed only for the kinds the server had when they initialized (its capabilities then). */
@McpModule({ server: { name: 'dynamic', version: '1.0.0' }, providers: [Decorated, Seeded] })
class SeededModule {}

const QUOTE_SCHEMA = {
  type: 'object' as const,
  properties: {
    symbol: { type: 'string', pattern: '^[A-Z]{1,5}$' },
    count: { type: 'integer', minimum: 1, default: 1 },
    email: { type: 'string', format: 'email' },
  },
  required: ['symbol'],
  additionalProperties: false,
};

async function start(module: new () => object = DynamicModule) {
  const app = await McpApplication.create(module);
  const client = new Client({ name: 'sdk', version: '1' });
  const changes: string[] = [];
  client.fallbackNotificationHandler = async (n) => void changes.push(n.method);
  await client.connect(app.connectInMemory());
  return { app, client, changes };
}

const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
const textOf = (result: unknown) => ((result as { content: { text: string }[] }).content[0] ?? { text: '' }).text;

describe('tools, resources and prompts registered at runtime (official SDK client)', () => {
  it('lists, calls, validates, updates and removes a tool, with list_changed each time', async () => {
    const { app, client, changes } = await start();
    const seen: unknown[] = [];
    app.addTool({
      name: 'quote',
      description: 'A stock quote',
      inputSchema: QUOTE_SCHEMA,
      annotations: { readOnlyHint: true },
      handler: (args, ctx) => {
        seen.push(ctx instanceof McpContext);
        return `${String(args.symbol)} x${typeof args.count === 'number' ? args.count : 1}`;
      },
    });
    await waitFor(() => changes.includes('notifications/tools/list_changed'));
    const listed = (await client.listTools()).tools.find((t) => t.name === 'quote')!;
    expect(listed).toMatchObject({
      description: 'A stock quote',
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', required: ['symbol'] },
    });
    expect(listed.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(await toolNames(client)).toEqual(['fixed', 'quote']);

    expect(textOf(await client.callTool({ name: 'quote', arguments: { symbol: 'ACME', count: 3 } }))).toBe('ACME x3');
    expect(seen).toEqual([true]);

    const bad = await client.callTool({ name: 'quote', arguments: { symbol: 'lower', count: 0, email: 'nope', extra: 1 } });
    expect(bad.isError).toBe(true);
    const message = textOf(bad);
    expect(message).toContain('Invalid arguments for tool "quote"');
    for (const field of [
      'symbol: must match pattern',
      'count: must be >= 1 (minimum)',
      'email: must match format "email" (format)',
      'extra: is not a parameter of this tool; its parameters are symbol, count, email',
    ])
      expect(message).toContain(field);
    expect(textOf(await client.callTool({ name: 'quote', arguments: {} }))).toContain('symbol: is required (required)');
    expect(seen).toHaveLength(1);

    changes.length = 0;
    expect(app.updateTool('quote', { description: 'A delayed quote', handler: (args) => `delayed ${String(args.symbol)}` })).toBe(true);
    await waitFor(() => changes.includes('notifications/tools/list_changed'));
    expect((await client.listTools()).tools.find((t) => t.name === 'quote')!.description).toBe('A delayed quote');
    expect(textOf(await client.callTool({ name: 'quote', arguments: { symbol: 'ACME' } }))).toBe('delayed ACME');
    expect(app.updateTool('missing', { description: 'x' })).toBe(false);

    changes.length = 0;
    expect(app.removeTool('quote')).toBe(true);
    await waitFor(() => changes.includes('notifications/tools/list_changed'));
    expect(await toolNames(client)).toEqual(['fixed']);
    await expect(client.callTool({ name: 'quote', arguments: { symbol: 'ACME' } })).rejects.toMatchObject({ code: -32602 });
    expect(app.removeTool('quote')).toBe(false);

    // Removed, then registered again under the same name: it is back.
    app.addTool({ name: 'quote', handler: () => 'again' });
    expect(textOf(await client.callTool({ name: 'quote', arguments: {} }))).toBe('again');
    await app.close();
  });

  it('validates structured output against outputSchema and streams from an async generator', async () => {
    const { app, client } = await start();
    app.addTool({
      name: 'point',
      inputSchema: { type: 'object', properties: { broken: { type: 'boolean' } } },
      outputSchema: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] },
      handler: (args) => (args.broken ? { x: 'no' } : { x: 1, y: 2 }),
    });
    app.addTool({
      name: 'count',
      handler: async function* () {
        yield 'one';
        yield 'two';
      },
    });
    const good = await client.callTool({ name: 'point', arguments: {} });
    expect(good.structuredContent).toEqual({ x: 1, y: 2 });
    expect((await client.listTools()).tools.find((t) => t.name === 'point')!.outputSchema).toMatchObject({ required: ['x', 'y'] });
    const broken = await client.callTool({ name: 'point', arguments: { broken: true } });
    expect(broken).toMatchObject({ isError: true, content: [{ text: 'Tool "point" produced invalid output' }] });
    expect((await client.callTool({ name: 'count', arguments: {} })).content).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
    await app.close();
  });

  it('registers resources, templates and prompts with completions, and updates and removes them', async () => {
    const { app, client, changes } = await start(SeededModule);
    app.addResource({ uri: 'config://app', name: 'config', mimeType: 'application/json', handler: () => ({ debug: true }) });
    app.addResource({
      uriTemplate: 'cities://{country}/{city}',
      name: 'city',
      mimeType: 'text/plain',
      handler: (vars) => `${vars.city} in ${vars.country}`,
      complete: { country: (value) => ['france', 'finland', 'germany'].filter((c) => c.startsWith(value)) },
    });
    app.addPrompt({
      name: 'review',
      description: 'Review code',
      arguments: [{ name: 'language', required: true }, { name: 'style' }],
      handler: (args) => `Review this ${args.language} code${args.style ? ` in a ${args.style} style` : ''}`,
      complete: { language: (value) => ['go', 'typescript'].filter((l) => l.startsWith(value)) },
    });
    await waitFor(() => changes.includes('notifications/resources/list_changed') && changes.includes('notifications/prompts/list_changed'));
    // Only the lists that changed: the decorated tools are the same definitions after the rebuild.
    expect(changes).not.toContain('notifications/tools/list_changed');

    expect((await client.listResources()).resources).toEqual([
      { uri: 'static://readme', name: 'readme' },
      { uri: 'config://app', name: 'config', mimeType: 'application/json' },
    ]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
      { uriTemplate: 'cities://{country}/{city}', name: 'city', mimeType: 'text/plain' },
    ]);
    expect((await client.readResource({ uri: 'config://app' })).contents).toEqual([
      { uri: 'config://app', mimeType: 'application/json', text: '{"debug":true}' },
    ]);
    expect((await client.readResource({ uri: 'cities://france/lyon' })).contents).toEqual([
      { uri: 'cities://france/lyon', mimeType: 'text/plain', text: 'lyon in france' },
    ]);
    const countries = await client.complete({
      ref: { type: 'ref/resource', uri: 'cities://{country}/{city}' },
      argument: { name: 'country', value: 'f' },
    });
    expect(countries.completion.values).toEqual(['france', 'finland']);

    expect((await client.listPrompts()).prompts.slice(1)).toEqual([
      { name: 'review', description: 'Review code', arguments: [{ name: 'language', required: true }, { name: 'style' }] },
    ]);
    expect((await client.getPrompt({ name: 'review', arguments: { language: 'go' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Review this go code' } },
    ]);
    await expect(client.getPrompt({ name: 'review', arguments: { style: 'terse' } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('language: is required'),
    });
    const languages = await client.complete({ ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'language', value: 't' } });
    expect(languages.completion.values).toEqual(['typescript']);

    expect(app.updateResource('config://app', { handler: () => ({ debug: false }) })).toBe(true);
    expect((await client.readResource({ uri: 'config://app' })).contents[0]).toMatchObject({ text: '{"debug":false}' });
    expect(app.updatePrompt('review', { handler: () => 'changed' })).toBe(true);
    expect((await client.getPrompt({ name: 'review', arguments: { language: 'go' } })).messages[0].content).toEqual({
      type: 'text',
      text: 'changed',
    });

    changes.length = 0;
    expect(app.removeResource('cities://{country}/{city}')).toBe(true);
    expect(app.removeResource('config://app')).toBe(true);
    expect(app.removePrompt('review')).toBe(true);
    await waitFor(() => changes.includes('notifications/resources/list_changed') && changes.includes('notifications/prompts/list_changed'));
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['static://readme']);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    await expect(client.readResource({ uri: 'config://app' })).rejects.toMatchObject({ code: -32002 });
    await app.close();
  });

  it('refuses bad definitions and collisions with named errors, changing nothing', async () => {
    const { app, client } = await start();
    expect(() => app.addTool({ name: 'fixed', handler: () => 'x' })).toThrow(DuplicateToolNameError);
    expect(() => app.addTool({ name: 'has space', handler: () => 'x' })).toThrow(InvalidDefinitionError);
    expect(() => app.addTool({ name: 'ok', handler: 'nope' as never })).toThrow(/handler must be a function/);
    expect(() => app.addTool({ name: 'ok', inputSchema: { type: 'array' } as never, handler: () => 'x' })).toThrow(
      /inputSchema must be a JSON Schema with type "object"/,
    );
    expect(() =>
      app.addTool({ name: 'ok', inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } }, handler: () => 'x' }),
    ).toThrow(/inputSchema is not a valid JSON Schema/);
    expect(() => app.addTool({ name: 'ok', taskSupport: 'sometimes' as never, handler: () => 'x' })).toThrow(InvalidDefinitionError);
    app.addTool({ name: 'once', handler: () => 'x' });
    expect(() => app.addTool({ name: 'once', handler: () => 'y' })).toThrow(DuplicateToolNameError);
    expect(() => app.updateTool('once', { name: 'fixed' })).toThrow(DuplicateToolNameError);

    app.addResource({ uri: 'a://x', name: 'x', handler: () => 'x' });
    expect(() => app.addResource({ uri: 'a://x', name: 'other', handler: () => 'x' })).toThrow(DuplicateResourceError);
    expect(() => app.addResource({ uri: 'a://y', name: 'x', handler: () => 'x' })).toThrow(DuplicateResourceError);
    expect(() => app.addResource({ uri: 'not a uri', name: 'z', handler: () => 'x' })).toThrow(InvalidDefinitionError);
    app.addResource({ uriTemplate: 'b://{id}', name: 'b', handler: () => 'x' });
    expect(() => app.addResource({ uriTemplate: 'b://{other}', name: 'b2', handler: () => 'x' })).toThrow(ClashingUriTemplateError);
    expect(() => app.addResource({ uriTemplate: 'c://{id}', name: 'c', handler: () => 'x', complete: { nope: () => [] } })).toThrow(
      UnknownCompletionTargetError,
    );
    app.addPrompt({ name: 'p', handler: () => 'x' });
    expect(() => app.addPrompt({ name: 'p', handler: () => 'x' })).toThrow(DuplicatePromptNameError);
    expect(() => app.addPrompt({ name: 'q', arguments: [{ name: 'a' }, { name: 'a' }], handler: () => 'x' })).toThrow(/declared twice/);

    expect(await toolNames(client)).toEqual(['fixed', 'once']);
    expect(textOf(await client.callTool({ name: 'fixed', arguments: {} }))).toBe('decorated');
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['a://x']);
    await app.close();
  });

  it('checks scopes of a runtime tool like @RequireScopes, and lists it only to callers who may use it', async () => {
    const app = await McpApplication.create(DynamicModule);
    app.addTool({ name: 'admin', scopes: ['admin'], handler: () => 'secret' });
    const as = async (scopes: string[]) => {
      const client = new Client({ name: 'scoped', version: '1' });
      await client.connect(app.connectInMemory({ auth: { token: 't', clientId: 'c', scopes, subject: 's' } }));
      return client;
    };
    const user = await as(['read']);
    expect(await toolNames(user)).toEqual(['fixed']);
    await expect(user.callTool({ name: 'admin', arguments: {} })).rejects.toMatchObject({ code: -32003 });
    const admin = await as(['admin']);
    expect(textOf(await admin.callTool({ name: 'admin', arguments: {} }))).toBe('secret');
    await app.close();
  });

  it('keeps what was hidden hidden across an update, and compiles schemas with $id and $ref any number of times', async () => {
    const { app, client } = await start();
    app.addTool({ name: 'hidden', handler: () => 'x' });
    app.disable('tool', 'hidden');
    expect(app.updateTool('hidden', { description: 'still hidden' })).toBe(true);
    expect(await toolNames(client)).toEqual(['fixed']);
    expect(app.enable('tool', 'hidden')).toBe(true);
    expect(await toolNames(client)).toEqual(['fixed', 'hidden']);

    const schema = {
      $id: 'https://example.com/schemas/point',
      type: 'object' as const,
      $defs: { coordinate: { type: 'number', minimum: 0 } },
      properties: { x: { $ref: '#/$defs/coordinate' }, y: { $ref: '#/$defs/coordinate' } },
      required: ['x', 'y'],
    };
    app.addTool({ name: 'plot', inputSchema: schema, handler: (args) => `plotted ${String(args.x)},${String(args.y)}` });
    app.addTool({ name: 'plot2', inputSchema: schema, handler: () => 'twice' });
    expect(app.updateTool('plot', { description: 'Plots a point' })).toBe(true);
    expect(textOf(await client.callTool({ name: 'plot', arguments: { x: 1, y: 2 } }))).toBe('plotted 1,2');
    expect(textOf(await client.callTool({ name: 'plot', arguments: { x: -1, y: 2 } }))).toContain('x: must be >= 0 (minimum)');
    expect(textOf(await client.callTool({ name: 'plot2', arguments: { x: 1, y: 2 } }))).toBe('twice');
    app.removeTool('plot');
    app.addTool({ name: 'plot', inputSchema: schema, handler: () => 'back' });
    expect(textOf(await client.callTool({ name: 'plot', arguments: { x: 0, y: 0 } }))).toBe('back');
    await app.close();
  });

  it('enforces required prompt arguments whose names are also Object members', async () => {
    const { app, client } = await start(SeededModule);
    app.addPrompt({
      name: 'odd',
      arguments: [
        { name: 'constructor', required: true },
        { name: 'toString', required: true },
      ],
      handler: () => 'ok',
    });
    await expect(client.getPrompt({ name: 'odd', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/constructor: is required.*toString: is required/),
    });
    expect((await client.getPrompt({ name: 'odd', arguments: { constructor: 'a', toString: 'b' } })).messages[0].content).toEqual({
      type: 'text',
      text: 'ok',
    });
    await app.close();
  });

  it('applies guards and middleware given as options to a runtime tool and a custom method, like @UseGuards and @UseMiddleware', async () => {
    const seen: string[] = [];
    class OnlyAda implements CanActivate {
      canActivate(context: GuardContext) {
        seen.push(`guard ${context.kind} ${context.name}`);
        return context.auth.subject === 'ada';
      }
    }
    const around: Middleware = async (invocation, next) => {
      seen.push(`before ${invocation.kind}`);
      const result = await next();
      seen.push(`after ${invocation.kind}`);
      return result;
    };
    const app = await McpApplication.create(DynamicModule);
    app.addTool({ name: 'guarded', guards: [OnlyAda], middleware: [around], handler: () => 'let in' });
    app.addMethod('acme/guarded', () => ({ ok: true }), { guards: [OnlyAda], middleware: [around] });
    const as = async (subject: string) => {
      const client = new Client({ name: subject, version: '1' });
      await client.connect(app.connectInMemory({ auth: { token: 't', clientId: 'c', scopes: [], subject } }));
      return client;
    };
    const ada = await as('ada');
    expect(textOf(await ada.callTool({ name: 'guarded', arguments: {} }))).toBe('let in');
    expect(await ada.request({ method: 'acme/guarded', params: {} }, z.object({ ok: z.boolean() }))).toEqual({ ok: true });
    expect(seen).toEqual(['guard tool guarded', 'before tool', 'after tool', 'guard method acme/guarded', 'before method', 'after method']);
    const bob = await as('bob');
    expect(await toolNames(bob)).toEqual(['fixed']);
    await expect(bob.callTool({ name: 'guarded', arguments: {} })).rejects.toMatchObject({ code: -32003 });
    await expect(bob.request({ method: 'acme/guarded', params: {} }, z.object({}).passthrough())).rejects.toMatchObject({ code: -32003 });
    expect(() => app.addTool({ name: 'bad', guards: [class {} as never], handler: () => 'x' })).toThrow(
      /guards must be classes with a canActivate method/,
    );
    expect(() => app.addMethod('acme/bad', () => ({}), { middleware: ['nope' as never] })).toThrow(
      /middleware must be a list of functions/,
    );
    await app.close();
  });

  it('with offer, a server that starts without tools tells clients connected earlier about tools added later, and lists none when none are left', async () => {
    @McpModule({ server: { name: 'empty', version: '1.0.0' }, providers: [] })
    class EmptyModule {}
    const bare = await McpApplication.create(EmptyModule);
    const before = new Client({ name: 'sdk', version: '1' });
    await before.connect(bare.connectInMemory());
    expect(before.getServerCapabilities()?.tools).toBeUndefined();
    await expect(before.listTools()).rejects.toMatchObject({ code: -32601 });
    await bare.close();

    const app = await McpApplication.create(EmptyModule, { offer: { tools: true, prompts: true } });
    const client = new Client({ name: 'sdk', version: '1' });
    const changes: string[] = [];
    client.fallbackNotificationHandler = async (n) => void changes.push(n.method);
    await client.connect(app.connectInMemory());
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, prompts: { listChanged: true } });
    expect(client.getServerCapabilities()?.resources).toBeUndefined();
    expect(await toolNames(client)).toEqual([]);
    app.addTool({ name: 'late', handler: () => 'late' });
    await waitFor(() => changes.includes('notifications/tools/list_changed'));
    expect(await toolNames(client)).toEqual(['late']);
    app.removeTool('late');
    await waitFor(async () => (await toolNames(client)).length === 0);
    expect((await client.listPrompts()).prompts).toEqual([]);
    await app.close();
  });

  it('refuses hostile arguments to a schema-defined tool before the schema runs: deep nesting, prototype keys; the server keeps serving', async () => {
    const { app, client } = await start();
    const seen: unknown[] = [];
    // A recursive schema: deep input would make a recursive validator overflow the stack.
    app.addTool({
      name: 'tree',
      inputSchema: {
        type: 'object',
        $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } },
        properties: { root: { $ref: '#/$defs/node' } },
      },
      handler: (args) => (seen.push(args), 'ok'),
    });
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 500; i++) deep = { child: deep };
    const nested = await client.callTool({ name: 'tree', arguments: { root: deep } });
    expect(nested).toMatchObject({ isError: true });
    expect(textOf(nested)).toContain('nested deeper than 64 levels (maxDepth)');
    const polluted = await client.callTool({ name: 'tree', arguments: JSON.parse('{"root":{"__proto__":{"admin":true}}}') });
    expect(textOf(polluted)).toContain('the key "__proto__" is not allowed (forbiddenKey)');
    expect(seen).toEqual([]);
    expect(textOf(await client.callTool({ name: 'tree', arguments: { root: { child: {} } } }))).toBe('ok');
    await app.close();
  });

  it('tells of a change only the sessions that existed when it was made (one that starts later reads the lists as they are)', async () => {
    const app = await McpApplication.create(DynamicModule, { listChangedDebounceMs: 300 });
    const connect = async () => {
      const client = new Client({ name: 'sdk', version: '1' });
      const heard: string[] = [];
      client.fallbackNotificationHandler = async (n) => void heard.push(n.method);
      await client.connect(app.connectInMemory());
      return { client, heard };
    };
    const before = await connect();
    app.addTool({ name: 'registered', handler: () => 'x' });
    // Connected (and initialized) inside the debounce window, after the change.
    const after = await connect();
    expect(await toolNames(after.client)).toEqual(['fixed', 'registered']);
    await waitFor(() => before.heard.includes('notifications/tools/list_changed'));
    // The change was told, to the sessions it was told to, before this ping's answer: a notice for `after` would come first.
    await after.client.ping();
    expect(after.heard).toEqual([]);
    await app.close();
  });
});
