import { InMemoryMetricExporter, AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { injectable } from 'tsyringe';
import { EmptyInput, IDEMPOTENCY_KEY_META, Idempotent, McpApplication, McpContext, McpModule, RateLimit, Timeout, Tool } from '../../src';
import { McpTestClient } from '../../src/testing';
import { useAsyncContextManager } from '../helpers/otel-context';
import { postPerRequest } from '../helpers/per-request-http';
import { serveFetch } from '../helpers/fetch-node-server';
import { waitFor } from '../helpers/wait-for';
import { RawTransport } from '../helpers/raw-transport';
import { fetchHandler } from '../../src/fetch';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
let started = 0;

@injectable()
class CallerTools {
  @RateLimit({ limit: 2, windowMs: 60_000 })
  @Tool({ description: 'two a minute per caller' })
  mine() {
    return 'ok';
  }

  @RateLimit({ limit: 2, windowMs: 60_000, per: 'everyone' })
  @Tool({ description: 'two a minute for everyone' })
  shared() {
    return 'ok';
  }

  @RateLimit({ limit: 1, windowMs: 60_000, per: (call) => String(call.arguments.tenant) })
  @Tool({ description: 'one a minute per tenant', inputSchema: { type: 'object', properties: { tenant: { type: 'string' } } } })
  perTenant() {
    return 'ok';
  }

  @Idempotent()
  @Tool({ description: 'asks before it acts, and carries on without an answer' })
  async confirmed(_: EmptyInput, ctx: McpContext) {
    started++;
    try {
      const answer = await ctx.elicit({ message: 'Sure?', requestedSchema: { type: 'object', properties: {} } }, { key: 'sure' });
      return `done: ${answer.action}`;
    } catch {
      return 'went on without asking';
    }
  }

  @Tool({ description: 'no policy of its own' })
  plain() {
    return 'plain';
  }

  @Idempotent()
  @Timeout(100)
  @Tool({ description: 'a task that may run too long', taskSupport: 'optional' })
  async job(_input: EmptyInput, ctx: McpContext) {
    started++;
    const ms = Number(ctx.meta?.ms ?? 0);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return 'finished';
  }
}

@McpModule({ providers: [CallerTools] })
class CallerModule {}

const apps: McpApplication[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function create(options: Parameters<typeof McpApplication.create>[1] = {}) {
  const app = await McpApplication.create(CallerModule, { logger: quiet, ...options });
  apps.push(app);
  return app;
}

const call = (client: McpTestClient, name: string, args: Record<string, unknown> = {}) =>
  client.request('tools/call', { name, arguments: args }).then(
    () => 'ok',
    (e: { code: number }) => e.code,
  );

describe('whose budget a call counts against', () => {
  it('gives each principal its own budget, and per: everyone one budget for all', async () => {
    const app = await create();
    const alice = await McpTestClient.connect(app.connectInMemory({ auth: { principal: 'alice' }, local: false }));
    const bob = await McpTestClient.connect(app.connectInMemory({ auth: { principal: 'bob' }, local: false }));
    expect([await call(alice, 'mine'), await call(alice, 'mine'), await call(alice, 'mine')]).toEqual(['ok', 'ok', -32023]);
    expect([await call(bob, 'mine'), await call(bob, 'mine')]).toEqual(['ok', 'ok']);
    expect([await call(alice, 'shared'), await call(bob, 'shared'), await call(bob, 'shared')]).toEqual(['ok', 'ok', -32023]);
  });

  it('names a budget with a function of the call (a tenant argument)', async () => {
    const app = await create();
    const client = await McpTestClient.connect(app.connectInMemory());
    expect([await call(client, 'perTenant', { tenant: 'a' }), await call(client, 'perTenant', { tenant: 'b' })]).toEqual(['ok', 'ok']);
    expect(await call(client, 'perTenant', { tenant: 'a' })).toBe(-32023);
  });

  it('tells anonymous HTTP callers apart by the forwarded address with trustProxy, by the connection without', async () => {
    for (const [trustProxy, expected] of [
      [1, ['ok', 'ok', 'ok', -32023]],
      [0, ['ok', 'ok', -32023, -32023]],
    ] as const) {
      const app = await create({ policies: { trustProxy } });
      const served = await serveFetch(fetchHandler(app));
      const from = async (address: string) => {
        const reply = await postPerRequest(
          `${served.url}/mcp`,
          'tools/call',
          { name: 'mine' },
          { 'x-forwarded-for': `203.0.113.9, ${address}` },
        );
        return reply.body.error ? reply.body.error.code : 'ok';
      };
      const seen = [await from('198.51.100.1'), await from('198.51.100.1'), await from('198.51.100.2'), await from('198.51.100.1')];
      await served.close();
      expect(seen).toEqual(expected);
    }
  });

  it('applies the application-wide defaults to handlers without their own', async () => {
    const app = await create({ policies: { defaults: { rateLimit: { limit: 1, windowMs: 60_000 } } } });
    const client = await McpTestClient.connect(app.connectInMemory());
    expect([await call(client, 'plain'), await call(client, 'plain')]).toEqual(['ok', -32023]);
    // A handler's own limit wins over the default.
    expect([await call(client, 'mine'), await call(client, 'mine'), await call(client, 'mine')]).toEqual(['ok', 'ok', -32023]);
    await expect(create({ policies: { defaults: { timeoutMs: -1 } } })).rejects.toThrow(
      'policies.defaults: timeoutMs must be a positive number of milliseconds',
    );
  });
});

describe('policies and tasks', () => {
  const taskCall = (client: McpTestClient, key: string, ms: number) =>
    client.request('tools/call', { name: 'job', arguments: {}, task: {}, _meta: { [IDEMPOTENCY_KEY_META]: key, ms } }) as Promise<{
      task: { taskId: string };
    }>;

  it('gives the retry of a task-augmented call the same task, and runs it once', async () => {
    started = 0;
    const app = await create();
    const client = await McpTestClient.connect(app.connectInMemory());
    const first = await taskCall(client, 'job-1', 10);
    const retry = await taskCall(client, 'job-1', 10);
    expect(retry.task.taskId).toBe(first.task.taskId);
    await expect(client.request('tasks/result', { taskId: first.task.taskId })).resolves.toMatchObject({ content: [{ text: 'finished' }] });
    expect(started).toBe(1);
  });

  it('fails a task past its timeout with the timeout message', async () => {
    const app = await create();
    const client = await McpTestClient.connect(app.connectInMemory());
    const { task } = await taskCall(client, 'job-2', 5_000);
    await waitFor(async () => ((await client.request('tasks/get', { taskId: task.taskId })) as { status: string }).status === 'failed', {
      timeoutMs: 5_000,
      what: 'the task to fail',
    });
    expect(await client.request('tasks/get', { taskId: task.taskId })).toMatchObject({
      status: 'failed',
      statusMessage: 'Tool "job" timed out after 100 ms',
    });
  });
});

describe('policies and multi round-trip requests (2026-07-28)', () => {
  it('keeps no result of a round that needs input, and keeps the final one for retries with the key', async () => {
    started = 0;
    const app = await create();
    const client = new RawTransport();
    app.connect(client, { local: true });
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
      [IDEMPOTENCY_KEY_META]: 'ask-1',
    };
    const ask = (id: number, extra: Record<string, unknown> = {}) =>
      client.request({ id, method: 'tools/call', params: { name: 'confirmed', arguments: {}, ...extra, _meta } });
    const first = await ask(1);
    expect(first.result).toMatchObject({ resultType: 'input_required' });
    // Swallowed by the handler, the round's "went on without asking" is not the call's result.
    expect((await ask(2)).result).toMatchObject({ resultType: 'input_required' });
    const done = await ask(3, { inputResponses: { sure: { action: 'accept', content: {} } }, requestState: first.result!.requestState });
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ text: 'done: accept' }] });
    expect((await ask(4)).result).toMatchObject({ resultType: 'complete', content: [{ text: 'done: accept' }] });
    expect(started).toBe(3);
  });
});

describe('policies in telemetry', () => {
  it('adds a mcpkit.policy event to the request span and counts the outcome', async () => {
    const stop = useAsyncContextManager();
    try {
      const exporter = new InMemorySpanExporter();
      const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      const reader = new PeriodicExportingMetricReader({
        exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
        exportIntervalMillis: 3_600_000,
      });
      const meterProvider = new MeterProvider({ readers: [reader] });
      const app = await create({ telemetry: { mode: 'full', tracerProvider, meterProvider } });
      const client = await McpTestClient.connect(app.connectInMemory());
      await call(client, 'perTenant', { tenant: 't' });
      await call(client, 'perTenant', { tenant: 't' });
      const refused = exporter
        .getFinishedSpans()
        .filter((s) => s.name === 'tools/call perTenant' && s.events.some((e) => e.name === 'mcpkit.policy'));
      expect(refused).toHaveLength(1);
      expect(refused[0].events.find((e) => e.name === 'mcpkit.policy')?.attributes).toMatchObject({
        'mcpkit.policy': 'rate_limit',
        'mcpkit.policy.outcome': 'refused',
        'mcpkit.handler.name': 'perTenant',
      });
      const { resourceMetrics } = await reader.collect();
      const counter = resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .find((m) => m.descriptor.name === 'mcpkit.server.policy.outcomes');
      expect(counter?.dataPoints).toEqual([
        expect.objectContaining({
          value: 1,
          attributes: { 'mcpkit.policy': 'rate_limit', 'mcpkit.policy.outcome': 'refused', 'mcpkit.handler.kind': 'tool' },
        }),
      ]);
    } finally {
      stop();
    }
  });
});
