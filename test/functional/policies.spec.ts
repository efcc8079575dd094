import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import {
  Cache,
  Concurrency,
  IDEMPOTENCY_KEY_META,
  Idempotent,
  InvalidDecoratorOptionsError,
  McpApplication,
  McpContext,
  McpModule,
  Prompt,
  RateLimit,
  Resource,
  Timeout,
  Tool,
} from '../../src';
import { connect } from '../helpers/in-memory';
import { fakeWallClock } from '../helpers/clock';
import { deferred, waitFor } from '../helpers/wait-for';

class NoteInput {
  @IsString() text!: string;
}

/** What the handlers did, as a user's service would count it. */
const ran = { notes: 0, reads: 0, prompts: 0, slow: 0, stopped: 0, busy: 0 };
/** `busy` answers once its test opens this. */
let busyGate = deferred();

@injectable()
class Guarded {
  @RateLimit({ limit: 3, windowMs: 60_000 })
  @Tool({ description: 'rate limited' })
  ping() {
    return 'pong';
  }

  @RateLimit({ limit: 2, windowMs: 60_000, disclose: false })
  @Tool({ description: 'rate limited, budget not disclosed' })
  quiet() {
    return 'ok';
  }

  @Idempotent()
  @Tool({ description: 'creates a note', input: NoteInput })
  async addNote(input: NoteInput) {
    ran.notes++;
    await new Promise((r) => setTimeout(r, 30));
    return `note ${ran.notes}: ${input.text}`;
  }

  @Cache({ ttlMs: 60_000 })
  @Tool({ description: 'reads', annotations: { readOnlyHint: true }, input: NoteInput })
  lookup(input: NoteInput) {
    ran.reads++;
    return `read ${ran.reads}: ${input.text}`;
  }

  @Cache({ ttlMs: 60_000 })
  @Resource({ uri: 'data://config', mimeType: 'text/plain' })
  config() {
    ran.reads++;
    return `config ${ran.reads}`;
  }

  @Cache({ ttlMs: 60_000, scope: 'public' })
  @Prompt({ description: 'a cached prompt' })
  greeting() {
    ran.prompts++;
    return `hello ${ran.prompts}`;
  }

  @Timeout(50)
  @Tool({ description: 'too slow' })
  async slow(ctx: McpContext) {
    ran.slow++;
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
    ran.stopped++;
    return 'never answered';
  }

  @Concurrency({ max: 1, queue: 1 })
  @Tool({ description: 'one at a time' })
  async busy() {
    ran.busy++;
    await busyGate.promise;
    return 'done';
  }
}

@McpModule({ providers: [Guarded] })
class GuardedModule {}

const call = (name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) => ({
  name,
  arguments: args,
  ...(meta ? { _meta: meta } : {}),
});

beforeEach(() => Object.assign(ran, { notes: 0, reads: 0, prompts: 0, slow: 0, stopped: 0, busy: 0 }));

describe('@RateLimit', () => {
  it('refuses the call past the limit with -32023, when to retry and the budget, and serves other tools', async () => {
    const { app, client } = await connect(GuardedModule);
    for (let i = 0; i < 3; i++)
      await expect(client.request('tools/call', call('ping'))).resolves.toMatchObject({ content: [{ text: 'pong' }] });
    const refused = await client.request('tools/call', call('ping')).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: -32023, data: { limit: 3, remaining: 0 } });
    const { retryAfterMs } = (refused as { data: { retryAfterMs: number } }).data;
    // 3 per minute refill one every 20 s.
    expect(retryAfterMs).toBeGreaterThan(19_000);
    expect(retryAfterMs).toBeLessThanOrEqual(20_000);
    await expect(client.request('tools/call', call('quiet'))).resolves.toBeDefined();
    await app.close();
  });

  it('lets a call through again once the bucket refilled', async () => {
    const { app, client } = await connect(GuardedModule);
    const clock = fakeWallClock();
    try {
      for (let i = 0; i < 3; i++) await client.request('tools/call', call('ping'));
      await expect(client.request('tools/call', call('ping'))).rejects.toMatchObject({ code: -32023 });
      clock.advance(20_001);
      await expect(client.request('tools/call', call('ping'))).resolves.toMatchObject({ content: [{ text: 'pong' }] });
      await expect(client.request('tools/call', call('ping'))).rejects.toMatchObject({ code: -32023 });
    } finally {
      clock.restore();
    }
    await app.close();
  });

  it('leaves out limit and remaining where the handler does not disclose them', async () => {
    const { app, client } = await connect(GuardedModule);
    for (let i = 0; i < 2; i++) await client.request('tools/call', call('quiet'));
    const refused = (await client.request('tools/call', call('quiet')).catch((e: unknown) => e)) as { data: Record<string, unknown> };
    expect(Object.keys(refused.data)).toEqual(['retryAfterMs']);
    await app.close();
  });

  it('counts the anonymous callers of one address against one budget (in process: the one local user)', async () => {
    const { app, client } = await connect(GuardedModule);
    for (let i = 0; i < 3; i++) await client.request('tools/call', call('ping'));
    // In process there is no address: every anonymous caller is the one local user.
    const other = await (await import('../../src/testing')).McpTestClient.connect(app.connectInMemory());
    await expect(other.request('tools/call', call('ping'))).rejects.toMatchObject({ code: -32023 });
    await app.close();
  });
});

describe('@Idempotent', () => {
  const key = (k: string) => ({ [IDEMPOTENCY_KEY_META]: k });

  it('runs concurrent retries with one key once, and gives every retry the same result', async () => {
    const { app, client } = await connect(GuardedModule);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => client.request('tools/call', call('addNote', { text: 'a' }, key('k1')))),
    );
    expect(ran.notes).toBe(1);
    expect(results).toEqual(Array.from({ length: 5 }, () => ({ content: [{ type: 'text', text: 'note 1: a' }] })));
    await expect(client.request('tools/call', call('addNote', { text: 'a' }, key('k1')))).resolves.toEqual(results[0]);
    expect(ran.notes).toBe(1);
    await app.close();
  });

  it('runs calls without a key, or with another key, each time', async () => {
    const { app, client } = await connect(GuardedModule);
    await client.request('tools/call', call('addNote', { text: 'a' }));
    await client.request('tools/call', call('addNote', { text: 'a' }));
    await client.request('tools/call', call('addNote', { text: 'a' }, key('k2')));
    expect(ran.notes).toBe(3);
    await app.close();
  });

  it('refuses the key used again with other arguments (-32602)', async () => {
    const { app, client } = await connect(GuardedModule);
    await client.request('tools/call', call('addNote', { text: 'a' }, key('k3')));
    await expect(client.request('tools/call', call('addNote', { text: 'b' }, key('k3')))).rejects.toMatchObject({
      code: -32602,
      message: 'Idempotency key "k3" was already used with other arguments',
    });
    await expect(client.request('tools/call', call('addNote', { text: 'a' }, key('x'.repeat(256))))).rejects.toMatchObject({
      code: -32602,
    });
    expect(ran.notes).toBe(1);
    await app.close();
  });

  it('says so in the tool list (idempotentHint)', async () => {
    const { app, client } = await connect(GuardedModule);
    const { tools } = (await client.request('tools/list')) as { tools: { name: string; annotations?: Record<string, unknown> }[] };
    expect(tools.find((t) => t.name === 'addNote')?.annotations).toEqual({ idempotentHint: true });
    await app.close();
  });
});

describe('@Cache', () => {
  it('serves a read-only tool from the cache by arguments until the tool list changes', async () => {
    const { app, client } = await connect(GuardedModule);
    const first = await client.request('tools/call', call('lookup', { text: 'a' }));
    await expect(client.request('tools/call', call('lookup', { text: 'a' }))).resolves.toEqual(first);
    await expect(client.request('tools/call', call('lookup', { text: 'b' }))).resolves.toMatchObject({ content: [{ text: 'read 2: b' }] });
    expect(ran.reads).toBe(2);
    app.addTool({ name: 'extra', handler: () => 'x' });
    await expect(client.request('tools/call', call('lookup', { text: 'a' }))).resolves.toMatchObject({ content: [{ text: 'read 3: a' }] });
    await app.close();
  });

  it('serves a resource from the cache until notifyResourceUpdated, and prompts too', async () => {
    const { app, client } = await connect(GuardedModule);
    const read = () => client.request('resources/read', { uri: 'data://config' });
    await expect(read()).resolves.toMatchObject({ contents: [{ text: 'config 1' }] });
    await expect(read()).resolves.toMatchObject({ contents: [{ text: 'config 1' }] });
    await app.notifyResourceUpdated('data://config');
    await expect(read()).resolves.toMatchObject({ contents: [{ text: 'config 2' }] });
    await client.request('prompts/get', { name: 'greeting' });
    await expect(client.request('prompts/get', { name: 'greeting' })).resolves.toMatchObject({
      messages: [{ content: { text: 'hello 1' } }],
    });
    await app.close();
  });

  it('refuses caching a tool that does not declare itself read-only', async () => {
    @injectable()
    class Writer {
      @Cache({ ttlMs: 1000 })
      @Tool({ description: 'writes' })
      write() {
        return 'w';
      }
    }
    @McpModule({ providers: [Writer] })
    class M {}
    await expect(
      McpApplication.create(M, { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } }),
    ).rejects.toThrow(InvalidDecoratorOptionsError);
  });
});

describe('@Timeout', () => {
  it('aborts the handler through ctx.signal and answers with the timeout error', async () => {
    const { app, client } = await connect(GuardedModule);
    await expect(client.request('tools/call', call('slow'))).rejects.toMatchObject({
      code: -32603,
      message: 'Tool "slow" timed out after 50 ms',
    });
    expect(ran).toMatchObject({ slow: 1, stopped: 1 });
    await app.close();
  });
});

describe('@Concurrency', () => {
  it('runs one call at a time, queues one, and refuses the rest as rate limited', async () => {
    const { app, client } = await connect(GuardedModule);
    busyGate = deferred();
    const settled: unknown[] = [];
    const calls = Array.from({ length: 3 }, () =>
      client
        .request('tools/call', call('busy'))
        .then(
          () => 'done',
          (e: { code: number }) => e.code,
        )
        .then((outcome) => (settled.push(outcome), outcome)),
    );
    // While the first call runs (held at the gate) and the second waits its turn, the third is refused.
    await waitFor(() => settled.length > 0, { what: 'a call to settle while busy is held' });
    expect(settled).toEqual([-32023]);
    busyGate.resolve();
    const outcomes = await Promise.all(calls);
    expect(outcomes.sort()).toEqual([-32023, 'done', 'done'].sort());
    expect(ran.busy).toBe(2);
    await app.close();
  });
});

describe('policies and streaming tools', () => {
  it('refuse a timeout or a concurrency limit on a streaming tool at startup; defaults leave one alone', async () => {
    @injectable()
    class Streams {
      @Timeout(1000)
      @Tool({ description: 'streams' })
      async *stream() {
        yield 'a';
      }
    }
    @McpModule({ providers: [Streams] })
    class M {}
    const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
    await expect(McpApplication.create(M, { logger: quiet })).rejects.toThrow(
      'does not apply to a streaming tool (an async generator) yet: stop it with ctx.signal instead',
    );
    const { app, client } = await connect(GuardedModule, { policies: { defaults: { timeoutMs: 50 } } });
    app.addTool({
      name: 'slowStream',
      handler: async function* () {
        await new Promise((r) => setTimeout(r, 100));
        yield 'streamed';
      },
    });
    await expect(client.request('tools/call', call('slowStream'))).resolves.toMatchObject({ content: [{ text: 'streamed' }] });
    expect(() =>
      app.addTool({
        name: 'limitedStream',
        policies: { concurrency: { max: 1 } },
        handler: async function* () {
          yield 'x';
        },
      }),
    ).toThrow('concurrency does not apply to a streaming tool');
    await app.close();
  });
});

describe('policies of handlers registered at runtime', () => {
  it('apply like the decorators, and bad options are a definition error', async () => {
    const { app, client } = await connect(GuardedModule);
    app.addTool({ name: 'limited', policies: { rateLimit: { limit: 1, windowMs: 60_000 } }, handler: () => 'once' });
    await client.request('tools/call', call('limited'));
    await expect(client.request('tools/call', call('limited'))).rejects.toMatchObject({ code: -32023 });
    expect(() => app.addTool({ name: 'bad', policies: { rateLimit: { limit: 0, windowMs: 1 } }, handler: () => 'x' })).toThrow(
      'limit must be a whole number of calls, at least 1',
    );
    await app.close();
  });
});
