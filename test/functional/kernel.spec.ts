import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { IsString } from 'class-validator';
import { inject, injectable } from 'tsyringe';
import { McpTestClient } from '../../src/testing';
import { EmptyInput, MCP_APPLICATION, McpApplication, McpModule, Middleware, Prompt, Tool, ToolError } from '../../src';
import { connect } from '../helpers/in-memory';
import { deferred } from '../helpers/wait-for';

@injectable()
class Counter {
  count = 0;
}

const CONFIG = Symbol('config');
const GREETING = Symbol('greeting');

class Clock {
  now(): string {
    throw new Error('replaced by FixedClock');
  }
}
class FixedClock extends Clock {
  override now() {
    return '2026-01-01';
  }
}

@injectable()
class CountingTools {
  constructor(
    private readonly counter: Counter,
    @inject(CONFIG) private readonly config: { prefix: string },
    @inject(GREETING) private readonly greeting: string,
    @inject(Clock) private readonly clock: Clock,
    @inject(MCP_APPLICATION) readonly app: McpApplication,
  ) {}

  @Tool() increment(_: EmptyInput) {
    return `${this.config.prefix}${++this.counter.count}`;
  }
  @Tool() greet(_: EmptyInput) {
    return `${this.greeting} on ${this.clock.now()}`;
  }
  /** Resolved when `slow` starts; `slow` answers once the test resolves `releaseSlow`. */
  readonly slowStarted = deferred();
  readonly releaseSlow = deferred();
  readonly trace: string[] = [];

  @Tool() async slow(_: EmptyInput) {
    this.slowStarted.resolve();
    await this.releaseSlow.promise;
    this.trace.push('slow answered');
    return 'slow done';
  }
  @Tool() denied(_: EmptyInput) {
    return 'should not run';
  }
}

@McpModule({ providers: [Counter] })
class SharedModule {}

@McpModule({
  imports: [SharedModule],
  server: {
    name: 'kernel-test',
    version: '2.0.0',
    title: 'Kernel',
    description: 'd',
    websiteUrl: 'https://example.com',
    icons: [{ src: 'https://example.com/i.png', sizes: ['48x48'] }],
    instructions: 'Be nice',
  },
  providers: [
    CountingTools,
    { provide: CONFIG, useValue: { prefix: '#' } },
    { provide: GREETING, useFactory: (resolve) => `hello from ${resolve<{ prefix: string }>(CONFIG).prefix}` },
    { provide: Clock, useClass: FixedClock },
  ],
})
class KernelModule {}

describe('McpApplication', () => {
  it('sends server info, instructions and capabilities derived from the registry', async () => {
    const { app, client } = await connect(KernelModule);
    expect(client.initializeResult).toEqual({
      protocolVersion: '2025-11-25',
      capabilities: { logging: {}, tools: { listChanged: true } },
      serverInfo: {
        name: 'kernel-test',
        version: '2.0.0',
        title: 'Kernel',
        description: 'd',
        websiteUrl: 'https://example.com',
        icons: [{ src: 'https://example.com/i.png', sizes: ['48x48'] }],
      },
      instructions: 'Be nice',
    });
    await expect(client.request('prompts/list')).rejects.toMatchObject({ code: -32601 });
    await expect(client.request('resources/read', { uri: 'x://y' })).rejects.toMatchObject({ code: -32601 });
    await app.close();
  });

  it('keeps providers singletons per application and resolves values, factories and classes under tokens', async () => {
    const { app, client } = await connect(KernelModule);
    const second = await McpTestClient.connect(app.connectInMemory());
    expect(await client.request('tools/call', { name: 'increment', arguments: {} })).toEqual({ content: [{ type: 'text', text: '#1' }] });
    expect(await second.request('tools/call', { name: 'increment', arguments: {} })).toEqual({ content: [{ type: 'text', text: '#2' }] });
    expect(await client.request('tools/call', { name: 'greet', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'hello from # on 2026-01-01' }],
    });
    expect(app.get(CountingTools).app).toBe(app);
    await app.close();
  });

  it('isolates two applications in one process', async () => {
    const a = await connect(KernelModule);
    const b = await connect(KernelModule);
    await a.client.request('tools/call', { name: 'increment', arguments: {} });
    await a.client.request('tools/call', { name: 'increment', arguments: {} });
    expect(await b.client.request('tools/call', { name: 'increment', arguments: {} })).toEqual({ content: [{ type: 'text', text: '#1' }] });
    expect(a.app.get(Counter)).not.toBe(b.app.get(Counter));
    await Promise.all([a.app.close(), b.app.close()]);
  });

  it('runs middleware around handlers, outermost first, and lets it short-circuit', async () => {
    const seen: string[] = [];
    const timing: Middleware = async (inv, next) => {
      seen.push(`outer>${inv.kind}:${inv.handler}`);
      const result = await next();
      seen.push('outer<');
      return result;
    };
    const guard: Middleware = async (inv, next) => {
      if (inv.handler.endsWith('.denied')) throw new ToolError('forbidden by guard');
      expect(inv.context?.requestId).toBeDefined();
      return next();
    };
    const { app, client } = await connect(KernelModule, { middleware: [timing, guard] });
    await client.request('tools/call', { name: 'increment', arguments: {} });
    expect(seen).toEqual(['outer>tool:CountingTools.increment', 'outer<']);
    expect(await client.request('tools/call', { name: 'denied', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'forbidden by guard' }],
      isError: true,
    });
    await app.close();
  });

  it('refuses next() called twice', async () => {
    const twice: Middleware = async (_inv, next) => {
      await next();
      return next();
    };
    const { app, client, logged } = await connect(KernelModule, { middleware: [twice] });
    expect(await client.request('tools/call', { name: 'increment', arguments: {} })).toMatchObject({ isError: true });
    expect(logged.join('\n')).toContain('next() called multiple times');
    await app.close();
  });

  it('close() waits for requests in flight, then closes sessions and the container', async () => {
    const { app, client } = await connect(KernelModule);
    const tools = app.get(CountingTools);
    const pending = client.request('tools/call', { name: 'slow', arguments: {} });
    await tools.slowStarted.promise;
    const closing = app.close().then(() => tools.trace.push('closed'));
    // Released a turn of the event loop later: a close() that did not wait would be done by then.
    setImmediate(() => tools.releaseSlow.resolve());
    await closing;
    expect(tools.trace).toEqual(['slow answered', 'closed']);
    await expect(pending).resolves.toEqual({ content: [{ type: 'text', text: 'slow done' }] });
    await expect(client.request('ping')).rejects.toThrow();
    expect(() => app.connectInMemory()).toThrow('closing');
  });

  it('close() cancels requests still running after shutdownTimeoutMs', async () => {
    const { app, client } = await connect(KernelModule, { shutdownTimeoutMs: 20 });
    const tools = app.get(CountingTools);
    const pending = client.request('tools/call', { name: 'slow', arguments: {} });
    const outcome = pending.then(
      () => 'answered',
      () => 'rejected',
    );
    await tools.slowStarted.promise;
    await app.close(); // never released: only the timeout can end it
    await expect(outcome).resolves.toBe('rejected');
    tools.releaseSlow.resolve();
  });

  it('serves the official SDK client over the in-memory transport', async () => {
    class Args {
      @IsString() who!: string;
    }
    @injectable()
    class P {
      @Prompt() hello(a: Args) {
        return `hi ${a.who}`;
      }
    }
    @McpModule({ providers: [P] })
    class M {}
    const app = await McpApplication.create(M);
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(app.connectInMemory());
    const prompt = await client.getPrompt({ name: 'hello', arguments: { who: 'sdk' } });
    expect(prompt.messages[0].content).toEqual({ type: 'text', text: 'hi sdk' });
    await client.close();
    await app.close();
  });
});
