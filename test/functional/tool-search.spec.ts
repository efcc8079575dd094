import { IsInt, IsString, Min } from 'class-validator';
import { injectable } from 'tsyringe';
import {
  type CanActivate,
  EmptyInput,
  type GuardContext,
  InvalidDefinitionError,
  McpApplication,
  McpModule,
  type Middleware,
  RequireScopes,
  Tool,
  UseGuards,
} from '../../src';
import { McpTestClient } from '../../src/testing';
import { connect } from '../helpers/in-memory';
import { serveFetch } from '../helpers/fetch-node-server';
import { perRequestBody, perRequestHeaders } from '../helpers/per-request-http';
import { fetchHandler } from '../../src/fetch';
import { deferred } from '../helpers/wait-for';

class TransferInput {
  @IsString() account!: string;
  @IsInt() @Min(1) cents!: number;
}

/** `exportLedger` answers once its test opens this. */
const ledgerExported = deferred();

class NoOne implements CanActivate {
  canActivate(_: GuardContext): boolean {
    return false;
  }
}

@injectable()
class Bank {
  @Tool({ description: 'Moves money from one account to another.', tags: ['payments'] })
  transfer(input: TransferInput) {
    return `moved ${input.cents} from ${input.account}`;
  }

  @Tool({ description: 'Lists the customers of the bank.', tags: ['crm'] })
  customers(_: EmptyInput) {
    return 'alice, bob';
  }

  @Tool({
    description: 'Answers how the weather will be.',
    inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'A municipality, e.g. Lyon' } } },
  })
  forecast(args: Record<string, unknown>) {
    return `sunny in ${String(args.city)}`;
  }

  @RequireScopes('admin')
  @Tool({ description: 'Closes a customer account for good.', tags: ['crm'] })
  closeAccount(_: EmptyInput) {
    return 'closed';
  }

  @UseGuards(NoOne)
  @Tool({ description: 'Audits every account of a customer.', tags: ['crm'] })
  audit(_: EmptyInput) {
    return 'audited';
  }

  @Tool({ description: 'Exports the ledger as a long-running task.', taskSupport: 'optional' })
  async exportLedger(_: EmptyInput) {
    await ledgerExported.promise;
    return 'ledger.csv';
  }
}

@McpModule({ providers: [Bank] })
class BankModule {}

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };

interface Found {
  tools: { name: string; inputSchema: unknown; execution?: unknown }[];
}

function searchOf(client: McpTestClient) {
  return async (args: Record<string, unknown>): Promise<string[]> => {
    const result = (await client.request('tools/call', { name: 'search_tools', arguments: args })) as {
      structuredContent: Found;
      isError?: boolean;
    };
    expect(result.isError).toBeUndefined();
    return result.structuredContent.tools.map((t) => t.name);
  };
}

async function asCaller(app: McpApplication, scopes: string[]): Promise<McpTestClient> {
  return McpTestClient.connect(app.connectInMemory({ auth: { token: 't', clientId: 'c', scopes, subject: 's' } }));
}

describe('tool search', () => {
  it('lists a search tool, a call tool and the pinned tools, and finds tools by what their parameters say', async () => {
    const { app, client } = await connect(BankModule, { toolSearch: { pinned: ['customers'] } });
    const listed = (await client.request('tools/list')) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool', 'customers']);
    const search = searchOf(client);
    // "municipality" is only in forecast's parameter description.
    expect((await search({ query: 'municipality' }))[0]).toBe('forecast');
    expect((await search({ query: 'move money between accounts' }))[0]).toBe('transfer');
    // Full definitions, in tools/list's shape.
    const found = (await client.request('tools/call', { name: 'search_tools', arguments: { query: 'money', limit: 1 } })) as {
      structuredContent: Found;
    };
    expect(found.structuredContent.tools).toEqual([
      expect.objectContaining({
        name: 'transfer',
        description: 'Moves money from one account to another.',
        inputSchema: expect.any(Object),
      }),
    ]);
    await app.close();
  });

  it('calls a found tool through its own pipeline: validation, results and errors as a direct call gives them', async () => {
    const seen: string[] = [];
    const watch: Middleware = (invocation, next) => {
      seen.push(`${invocation.kind}:${invocation.handler}`);
      return next();
    };
    const { app, client } = await connect(BankModule, { toolSearch: true, middleware: [watch] });
    const call = (name: string, args: unknown) => client.request('tools/call', { name: 'call_tool', arguments: { name, arguments: args } });
    expect(await call('transfer', { account: 'A1', cents: 500 })).toEqual({ content: [{ type: 'text', text: 'moved 500 from A1' }] });
    expect(seen).toEqual(['tool:Bank.transfer']);
    const direct = await client.request('tools/call', { name: 'transfer', arguments: { account: 'A1', cents: 0 } });
    expect(await call('transfer', { account: 'A1', cents: 0 })).toEqual(direct);
    expect(direct).toMatchObject({ isError: true });
    // Every tool stays callable by its own name.
    expect(await client.request('tools/call', { name: 'customers', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'alice, bob' }],
    });
    await expect(call('nope', {})).rejects.toMatchObject({ code: -32602, message: 'Unknown tool: nope' });
    await expect(call('call_tool', {})).rejects.toMatchObject({ code: -32602, message: 'Unknown tool: call_tool' });
    await expect(client.request('tools/call', { name: 'call_tool', arguments: { arguments: {} } })).rejects.toMatchObject({ code: -32602 });
    await app.close();
  });

  it('shows and calls only what the caller may list: scopes and guards', async () => {
    const app = await McpApplication.create(BankModule, { logger: quiet, toolSearch: true });
    const user = await asCaller(app, []);
    const admin = await asCaller(app, ['admin']);
    const everything = { query: 'account customer', limit: 50 };
    expect(await searchOf(user)(everything)).not.toContain('closeAccount');
    expect(await searchOf(admin)(everything)).toContain('closeAccount');
    for (const client of [user, admin]) expect(await searchOf(client)(everything)).not.toContain('audit');
    // The limit is filled from what the caller sees.
    expect(await searchOf(user)({ query: 'customer', limit: 1 })).toEqual(['customers']);
    await expect(
      user.request('tools/call', { name: 'call_tool', arguments: { name: 'closeAccount', arguments: {} } }),
    ).rejects.toMatchObject({ code: -32003 });
    expect(await admin.request('tools/call', { name: 'call_tool', arguments: { name: 'closeAccount', arguments: {} } })).toEqual({
      content: [{ type: 'text', text: 'closed' }],
    });
    await app.close();
  });

  it('filters by tag, and tells the model the tags there are', async () => {
    const { app, client } = await connect(BankModule, { toolSearch: true });
    expect(await searchOf(client)({ query: 'customer account', tags: ['payments'] })).toEqual(['transfer']);
    const listed = (await client.request('tools/list')) as { tools: { name: string; description: string }[] };
    expect(listed.tools[0].description).toContain('Tags: crm, payments.');
    await app.close();
  });

  it('follows the catalog: added, removed and disabled tools', async () => {
    const { app, client } = await connect(BankModule, { toolSearch: true });
    const search = searchOf(client);
    app.addTool({ name: 'refund', description: 'Gives a customer their money back.', tags: ['payments'], handler: () => 'refunded' });
    expect((await search({ query: 'give money back' }))[0]).toBe('refund');
    expect(await client.request('tools/call', { name: 'call_tool', arguments: { name: 'refund' } })).toEqual({
      content: [{ type: 'text', text: 'refunded' }],
    });
    app.removeTool('refund');
    expect(await search({ query: 'give money back' })).not.toContain('refund');
    app.disable('tool', 'forecast');
    expect(await search({ query: 'municipality weather' })).not.toContain('forecast');
    await app.close();
  });

  it('runs a task-augmented call of a found tool as a task', async () => {
    const { app, client } = await connect(BankModule, { toolSearch: true });
    const listed = (await client.request('tools/list')) as { tools: { name: string; execution?: unknown }[] };
    expect(listed.tools.find((t) => t.name === 'call_tool')?.execution).toEqual({ taskSupport: 'optional' });
    const created = (await client.request('tools/call', {
      name: 'call_tool',
      arguments: { name: 'exportLedger', arguments: {} },
      task: { ttl: 60_000 },
    })) as { task: { taskId: string; status: string } };
    expect(created.task.status).toBe('working');
    ledgerExported.resolve();
    const result = await client.request('tasks/result', { taskId: created.task.taskId });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'ledger.csv' }] });
    await app.close();
  });

  it('answers a bad search as a tool error the model can read', async () => {
    const { app, client } = await connect(BankModule, { toolSearch: { ranker: 'regex', maxLimit: 10 } });
    const call = (args: Record<string, unknown>) => client.request('tools/call', { name: 'search_tools', arguments: args });
    // Both match by name: equal scores go by name.
    expect(await call({ query: 'transf|forecast' })).toMatchObject({
      structuredContent: { tools: [{ name: 'forecast' }, { name: 'transfer' }] },
    });
    // A name scores above a description: "money" is in transfer's description, "customers" is a name.
    expect(await call({ query: 'money|customers' })).toMatchObject({
      structuredContent: { tools: [{ name: 'customers' }, { name: 'transfer' }] },
    });
    expect(await call({ query: '(' })).toMatchObject({
      isError: true,
      content: [{ text: 'Invalid search pattern "(": missing closing )' }],
    });
    expect(await call({ query: 'a'.repeat(257) })).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^Invalid search pattern "a+…": longer than 256 characters$/) }],
    });
    // A pattern that backtracks for hours in JavaScript's own engine (RE2 matches in linear time).
    app.addTool({ name: 'long', description: 'a'.repeat(60), handler: () => 'ok' });
    expect(await call({ query: '^(a+)+b$' })).toMatchObject({ structuredContent: { tools: [] } });
    expect(await call({ query: '^(a+)+$' })).toMatchObject({ structuredContent: { tools: [{ name: 'long' }] } });
    expect(await call({ query: 'x', limit: 11 })).toMatchObject({
      isError: true,
      content: [{ text: '"limit" must be an integer from 1 to 10' }],
    });
    expect(await call({})).toMatchObject({ isError: true, content: [{ text: '"query" must be a string' }] });
    expect(await call({ query: ' ' })).toMatchObject({ isError: true });
    // An empty query with tags lists the tagged tools the caller may see (here the local user: all), by name.
    expect(await call({ query: '', tags: ['crm'] })).toMatchObject({
      structuredContent: { tools: [{ name: 'audit' }, { name: 'closeAccount' }, { name: 'customers' }] },
    });
    await app.close();
  });

  it("uses the author's own ranker: built once from the catalog, then told of each change", async () => {
    const built: string[][] = [];
    const changes: string[] = [];
    const { app, client } = await connect(BankModule, {
      toolSearch: {
        ranker: async (documents) => {
          built.push(documents.map((d) => d.name));
          const names = new Set(documents.map((d) => d.name));
          return {
            // An embeddings ranker would ask a model here: a promise is fine.
            rank: async (query, { limit, visible }) =>
              [...names]
                .filter((name) => (!visible || visible(name)) && name.startsWith(query))
                .sort()
                .slice(0, limit)
                .map((name) => ({ name, score: 1 })),
            add: (document) => void (changes.push(`add ${document.name}`), names.add(document.name)),
            remove: (name) => void (changes.push(`remove ${name}`), names.delete(name)),
            replace: (document) => void changes.push(`replace ${document.name}`),
          };
        },
      },
    });
    expect(await searchOf(client)({ query: 'cu' })).toEqual(['customers']);
    expect(await searchOf(client)({ query: 'fo' })).toEqual(['forecast']);
    app.addTool({ name: 'fork', description: 'Forks.', handler: () => 'forked' });
    app.removeTool('fork');
    app.addTool({ name: 'format', description: 'Formats.', handler: () => 'formatted' });
    expect(await searchOf(client)({ query: 'fo' })).toEqual(['forecast', 'format']);
    expect(built).toHaveLength(1);
    expect(built[0]).toEqual(expect.arrayContaining(['transfer', 'customers', 'forecast', 'closeAccount', 'audit', 'exportLedger']));
    // The changes since the last search, not the whole catalog again.
    expect(changes).toEqual(['add format']);
    await app.close();
  });

  it('refuses a tool named like the search tool, and options it cannot use', async () => {
    @injectable()
    class Clash {
      @Tool({ description: 'mine' })
      search_tools(_: EmptyInput) {
        return 'mine';
      }
    }
    @McpModule({ providers: [Clash] })
    class ClashModule {}
    await expect(McpApplication.create(ClashModule, { logger: quiet, toolSearch: true })).rejects.toThrow(InvalidDefinitionError);
    await expect(McpApplication.create(BankModule, { logger: quiet, toolSearch: { limit: 0 } })).rejects.toThrow(
      'toolSearch: limit must be a positive integer, not 0',
    );
    await expect(McpApplication.create(BankModule, { logger: quiet, toolSearch: { searchTool: 'x', callTool: 'x' } })).rejects.toThrow(
      'toolSearch: searchTool, callTool and groupTool must differ',
    );
  });

  it('serves search through the fetch handler, statelessly, in the 2026-07-28 era', async () => {
    const app = await McpApplication.create(BankModule, { logger: quiet, toolSearch: true });
    const served = await serveFetch(fetchHandler(app));
    const post = async (method: string, params: Record<string, unknown>) => {
      const body = perRequestBody(method, params);
      const res = await fetch(`${served.url}/mcp`, { method: 'POST', headers: perRequestHeaders(body), body: JSON.stringify(body) });
      return ((await res.json()) as { result: Record<string, unknown> }).result;
    };
    try {
      expect((await post('tools/list', {})).tools).toMatchObject([{ name: 'search_tools' }, { name: 'call_tool' }]);
      const found = await post('tools/call', { name: 'search_tools', arguments: { query: 'weather in a municipality', limit: 1 } });
      expect(found.structuredContent).toMatchObject({ tools: [{ name: 'forecast' }] });
      const called = await post('tools/call', { name: 'call_tool', arguments: { name: 'forecast', arguments: { city: 'Lyon' } } });
      expect(called).toMatchObject({ content: [{ type: 'text', text: 'sunny in Lyon' }] });
    } finally {
      await served.close();
      await app.close();
    }
  });

  it('changes nothing when off', async () => {
    const { app, client } = await connect(BankModule);
    const listed = (await client.request('tools/list')) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).not.toContain('search_tools');
    expect(listed.tools).toHaveLength(6);
    await expect(client.request('tools/call', { name: 'search_tools', arguments: { query: 'x' } })).rejects.toMatchObject({
      code: -32602,
      message: 'Unknown tool: search_tools',
    });
    await app.close();
  });
});
