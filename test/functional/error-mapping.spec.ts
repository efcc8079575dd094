import { IsString, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { injectable } from 'tsyringe';
import { Complete, EmptyInput, Prompt, McpError, McpModule, Resource, Tool } from '../../src';
import { InMemoryTaskStore, StorageUnavailableError, type TaskStore } from '../../src/stores';
import { connect } from '../helpers/in-memory';
import { TaskTools } from '../helpers/task-tools';

class Inner {
  @IsString() tag!: string;
}
class Args {
  @IsString() query!: string;
  @ValidateNested() @Type(() => Inner) filter?: Inner;
}

/** An error class of the user's that knows how it should reach the client. */
class QuotaExceeded extends Error {
  toMcpError(): McpError {
    return new McpError(-32000, 'Quota exceeded: at most 5 reads a minute');
  }
}

class GreetArgs {
  @IsString() who!: string;
}

@injectable()
class Tools {
  @Prompt({ description: 'Greets' })
  greet(args: GreetArgs): string {
    return `Hello ${args.who}`;
  }

  @Complete({ prompt: 'greet', argument: 'who' })
  who(): string[] {
    return ['world'];
  }

  @Tool({ description: 'Looks things up' })
  find(input: Args) {
    return input.query;
  }

  @Tool({ description: 'Always over quota' })
  spend(_: EmptyInput): string {
    throw new QuotaExceeded('over quota');
  }

  @Resource({ uri: 'test://quota', mimeType: 'text/plain' })
  quota(): string {
    throw new QuotaExceeded('over quota');
  }
}

@McpModule({ providers: [Tools, TaskTools], server: { name: 'errors', version: '1.0.0' } })
class ErrorsModule {}

async function errorOf(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe("client mistakes are the client's (-32602 or an isError tool result), never logged as server faults", () => {
  it.each([
    // (a 10,000-deep argument is in test/interop/stdio-bad-input.spec.ts: this client cannot serialize one)
    ['a "constructor" key', () => JSON.parse('{"query":{"constructor":1}}')],
    ['a "__proto__" key', () => JSON.parse('{"query":"x","filter":{"__proto__":{"tag":"t"}}}')],
  ])('answers tools/call with %s by an isError result naming the problem', async (_label, args) => {
    const { app, client, logged } = await connect(ErrorsModule);
    const result = (await client.request('tools/call', { name: 'find', arguments: args() })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/Invalid arguments for tool "find"/);
    expect(logged).toEqual([]);
    await app.close();
  });

  it.each([
    ['an object', { a: 1 }],
    ['a number', 12],
    ['a string the store never issued', 'bm90LWEtY3Vyc29y'],
  ])('answers tasks/list with %s as cursor with -32602', async (_label, cursor) => {
    const { app, client, logged } = await connect(ErrorsModule);
    const error = await errorOf(client.request('tasks/list', { cursor }));
    expect(error.code).toBe(-32602);
    expect(logged).toEqual([]);
    await app.close();
  });
});

describe('errors echo little of what the client sent', () => {
  const long = 'n'.repeat(10_000);
  it.each([
    ['an unknown tool', 'tools/call', { name: long, arguments: {} }],
    ['an unknown prompt', 'prompts/get', { name: long }],
    ['an unknown method', long, {}],
    ['an unknown logging level', 'logging/setLevel', { level: long }],
    [
      'an unknown completion prompt',
      'completion/complete',
      { ref: { type: 'ref/prompt', name: long }, argument: { name: 'a', value: '' } },
    ],
    [
      'an unknown completion template',
      'completion/complete',
      { ref: { type: 'ref/resource', uri: long }, argument: { name: 'a', value: '' } },
    ],
  ])('%s: the name is shortened in the message', async (_label, method, params) => {
    const { app, client } = await connect(ErrorsModule);
    const error = await errorOf(client.request(method, params));
    expect(error.message).toMatch(/nnn/);
    expect(error.message.length).toBeLessThan(200);
    await app.close();
  });
});

describe('errors a task store throws', () => {
  it('a full store: a clear error stating the limit, not logged as unhandled', async () => {
    const { app, client, logged } = await connect(ErrorsModule, { taskStore: new InMemoryTaskStore({ maxTasks: 2 }) });
    for (let i = 0; i < 2; i++) await client.request('tools/call', { name: 'wait', arguments: { ms: 2_000 }, task: {} });
    const error = await errorOf(client.request('tools/call', { name: 'wait', arguments: { ms: 10 }, task: {} }));
    expect(error.code).toBe(-32603);
    expect(error.message).toBe('Task store full: at most 2 tasks');
    expect(logged.filter((l) => /Unhandled/.test(l))).toEqual([]);
    await app.close();
  });

  it('an unavailable store: -32603 naming the store, without its internal detail', async () => {
    const store: TaskStore = new InMemoryTaskStore();
    store.list = async () => {
      throw new StorageUnavailableError('The task store', new Error('connect ECONNREFUSED 10.1.2.3:6379'));
    };
    const { app, client, logged } = await connect(ErrorsModule, { taskStore: store });
    const error = await errorOf(client.request('tasks/list', {}));
    expect(error).toMatchObject({ code: -32603, message: 'The task store is unavailable' });
    expect(logged.filter((l) => /Unhandled/.test(l))).toEqual([]);
    await app.close();
  });

  it('an error class exposing its JSON-RPC mapping is answered with it (as an McpError would be)', async () => {
    const { app, client, logged } = await connect(ErrorsModule);
    const error = await errorOf(client.request('resources/read', { uri: 'test://quota' }));
    expect(error).toMatchObject({ code: -32000, message: 'Quota exceeded: at most 5 reads a minute' });
    const fromTool = await errorOf(client.request('tools/call', { name: 'spend', arguments: {} }));
    expect(fromTool).toMatchObject({ code: -32000, message: 'Quota exceeded: at most 5 reads a minute' });
    expect(logged).toEqual([]);
    await app.close();
  });
});
