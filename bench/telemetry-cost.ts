import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import { fork } from 'node:child_process';
import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { McpApplication, McpModule, Tool, type TelemetryOptions } from '../src';
import { internalsOf } from '../src/kernel/mcp-application';
import { withLogFields } from '../src/observability/log-context';

/*
 * What telemetry costs one stateless tools/call, in process: the request the HTTP bench sends (the
 * echo tool, a traceparent header, the connection's address) handed to the engine's serveStateless
 * the way the HTTP transport hands it, awaited, then closed, `CALLS` times in a row; CPU time
 * (process.cpuUsage, user + system, so the GC's threads count too) per call. No sockets, no Koa: what
 * is left is the request path itself, where the HTTP bench's ±30-50 µs of noise would hide a few µs.
 *
 * Each mode runs in a process of its own (a process that served several modes would have its hot
 * functions compiled for all of them), the modes alternating, `--runs` rounds; each process measures
 * `--batches` batches after a warm-up and keeps its median; the figure of a mode is the median of its
 * processes. `sdk floor` is no mcpkit at all: the OpenTelemetry SDK making the spans and the metric
 * point a call makes (a server span, one histogram record), as bare as the
 * SDK allows, to tell the SDK's own cost from mcpkit's.
 *
 * `--als` serves each call inside the server log's AsyncLocalStorage, as the transports serve every
 * request: where the runtime's storage is built on async hooks (Node 22), every promise made then pays
 * its hooks. `full-managed` registers a context
 * manager on AsyncLocalStorage too, as NodeSDK does. `--cold=512` writes to 512 KB between calls, so
 * that each call finds its code's data out of the caches, as a request served over HTTP does (between
 * two of them the HTTP parser, Koa and the streams ran): in a loop of nothing but calls, the SDK and
 * mcpkit run from warm caches, and telemetry reads 2-4x cheaper than the HTTP row (see issue 22's
 * telemetry row; the figure to compare is the delta over `off` with the same flags, as `--cold` costs
 * every mode the same).
 *
 *   npm run -s build && node dist/bench/telemetry-cost.js [--runs=5] [--calls=50000] [--batches=3] [--only=off,full-none] [--als]
 */

const MODES = ['off', 'propagation', 'full-none', 'full-bare', 'full-managed', 'full-validation', 'full-drop', 'sdk-floor'] as const;
type Mode = (typeof MODES)[number];
const LABELS: Record<Mode, string> = {
  off: 'off',
  propagation: 'propagation',
  'full-none': 'full, no SDK',
  'full-bare': 'full, SDK no exporter',
  'full-managed': 'full, SDK no exporter, ALS context manager',
  'full-validation': 'full, SDK no exporter, spans.validation',
  'full-drop': 'full, SDK batch exporter dropping',
  'sdk-floor': 'sdk floor (1 span + 1 histogram point, no mcpkit)',
};

const arg = (name: string, fallback: string) => new RegExp(`--${name}=(\\S+)`).exec(process.argv.join(' '))?.[1] ?? fallback;
const RUNS = Number(arg('runs', '5'));
const CALLS = Number(arg('calls', '50000'));
const BATCHES = Number(arg('batches', '3'));
const ONLY = arg('only', MODES.join(',')).split(',') as Mode[];
const ALS = process.argv.includes('--als');
/** `--cold=KB`: between calls, one byte of each cache line of a KB-sized buffer is written (see above). */
const COLD = Number(arg('cold', '0')) * 1024;
const junk = new Uint8Array(Math.max(COLD, 1));

/** Evicts the caches the way the rest of an HTTP request does (its parser, Koa, streams), or near enough. */
function chill(): void {
  for (let i = 0; i < COLD; i += 64) junk[i]++;
}

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
};
const PEER = { protocolVersion: '2025-11-25', clientCapabilities: {} };
const NETWORK = { peerAddress: '127.0.0.1', peerPort: 54321, httpVersion: '1.1' };

class EchoInput {
  @IsString() text!: string;
}

@injectable()
class EchoTools {
  @Tool({ description: 'Echoes its input' })
  echo(input: EchoInput) {
    return input.text;
  }
}

@McpModule({ server: { name: 'telemetry-cost', version: '1.0.0' }, providers: [EchoTools] })
class EchoModule {}

/** The SDK's providers, as the HTTP bench's server builds them (TELEMETRY_SDK bare and drop). */
function sdkProviders(exporting: boolean): { tracerProvider: object; meterProvider: object } {
  /* eslint-disable @typescript-eslint/no-require-imports -- the SDK is loaded only by the modes that use it */
  const { BasicTracerProvider, BatchSpanProcessor } =
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { MeterProvider } = require('@opentelemetry/sdk-metrics') as typeof import('@opentelemetry/sdk-metrics');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const drop = { export: (_: unknown, done: (r: { code: number }) => void) => done({ code: 0 }), shutdown: async () => undefined };
  const tracerProvider = new BasicTracerProvider({ spanProcessors: exporting ? [new BatchSpanProcessor(drop)] : [] });
  return { tracerProvider, meterProvider: new MeterProvider() };
}

/**
 * Registers a context manager on AsyncLocalStorage, as NodeSDK does (@opentelemetry/context-async-hooks'
 * AsyncLocalStorageContextManager, in its few lines that matter here): the context given to with() is active.
 */
function registerContextManager(): void {
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api'); // eslint-disable-line @typescript-eslint/no-require-imports
  const storage = new AsyncLocalStorage<import('@opentelemetry/api').Context>();
  const manager: import('@opentelemetry/api').ContextManager = {
    active: () => storage.getStore() ?? api.ROOT_CONTEXT,
    with: (ctx, fn, thisArg, ...args) => storage.run(ctx, thisArg == null ? fn : fn.bind(thisArg), ...args),
    bind: (_ctx, target) => target,
    enable: () => manager,
    disable: () => manager,
  };
  api.context.setGlobalContextManager(manager);
}

function telemetryOf(mode: Mode): TelemetryOptions | undefined {
  if (mode === 'off' || mode === 'propagation') return { mode };
  if (mode === 'full-none') return { mode: 'full' };
  if (mode === 'full-managed') registerContextManager();
  return { mode: 'full', ...sdkProviders(mode === 'full-drop'), spans: { validation: mode === 'full-validation' } };
}

/** A loop of `calls` stateless tools/call through the engine; the CPU µs each took. */
async function engineLoop(mode: Mode): Promise<(calls: number) => Promise<number>> {
  const app = await McpApplication.create(EchoModule, {
    logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
    telemetry: telemetryOf(mode),
  });
  const { engine } = internalsOf(app);
  const sink = () => Promise.resolve();
  return async (calls) => {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++) {
      const request = { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } } as const;
      const serve = () => engine.serveStateless(request, { headers: { ...HEADERS }, network: NETWORK }, PEER, sink);
      // --als: served inside the server log's AsyncLocalStorage, as every request is.
      const served = ALS ? withLogFields({ requestId: i, method: request.method }, serve) : serve();
      const response = await served.response;
      served.close();
      if (COLD) chill();
      if (i === 0 && !JSON.stringify(response).includes('"text":"hello"'))
        throw new Error(`unexpected answer: ${JSON.stringify(response)}`);
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / calls;
  };
}

/** The SDK alone: per call, a server span with the attributes mcpkit sets, one histogram point. */
function sdkFloorLoop(): (calls: number) => Promise<number> {
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api'); // eslint-disable-line @typescript-eslint/no-require-imports
  const { tracerProvider, meterProvider } = sdkProviders(false) as {
    tracerProvider: import('@opentelemetry/api').TracerProvider;
    meterProvider: import('@opentelemetry/api').MeterProvider;
  };
  const tracer = tracerProvider.getTracer('floor');
  const histogram = meterProvider.getMeter('floor').createHistogram('d', { unit: 's' });
  const parent = api.trace.setSpanContext(api.ROOT_CONTEXT, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: 1,
    isRemote: true,
  });
  return (calls) => {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++) {
      const span = tracer.startSpan(
        'tools/call echo',
        {
          kind: api.SpanKind.SERVER,
          attributes: {
            'mcp.method.name': 'tools/call',
            'gen_ai.tool.name': 'echo',
            'gen_ai.operation.name': 'execute_tool',
            'jsonrpc.request.id': String(i),
            'mcp.protocol.version': '2025-11-25',
            'network.transport': 'tcp',
            'network.protocol.name': 'http',
            'network.protocol.version': '1.1',
            'client.address': '127.0.0.1',
            'client.port': 54321,
          },
        },
        parent,
      );
      span.end();
      histogram.record(0.00001, {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'network.transport': 'tcp',
        'mcp.protocol.version': '2025-11-25',
      });
    }
    const used = process.cpuUsage(before);
    return Promise.resolve((used.user + used.system) / calls);
  };
}

async function child(mode: Mode): Promise<void> {
  const loop = mode === 'sdk-floor' ? sdkFloorLoop() : await engineLoop(mode);
  await loop(Math.max(2000, CALLS / 2)); // warm-up: compiled code, the GC's heap sizes
  const batches: number[] = [];
  for (let b = 0; b < BATCHES; b++) batches.push(await loop(CALLS));
  process.send!({ micros: median(batches) });
  process.exit(0);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function measure(mode: Mode): Promise<number> {
  return new Promise((resolve, reject) => {
    const proc = fork(__filename, [`--child=${mode}`, ...process.argv.slice(2)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    proc.once('message', (m: { micros: number }) => resolve(m.micros));
    proc.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`${mode} exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  const own = /--child=(\S+)/.exec(process.argv.join(' '))?.[1] as Mode | undefined;
  if (own) return child(own);
  const modes = MODES.filter((m) => ONLY.includes(m));
  const results = new Map<Mode, number[]>(modes.map((m) => [m, []]));
  for (let r = 0; r < RUNS; r++) for (const mode of modes) results.get(mode)!.push(await measure(mode));
  const off = results.get('off') ? median(results.get('off')!) : undefined;
  console.log(`telemetry cost in process: stateless tools/call (echo), ${CALLS} calls x ${BATCHES} batches, median of ${RUNS} processes`);
  for (const mode of modes) {
    const runs = results.get(mode)!;
    const m = median(runs);
    const vsOff =
      off !== undefined && mode !== 'off' && mode !== 'sdk-floor'
        ? `  vs off ${signed(m - off, ' µs')} (${signed((m / off - 1) * 100, '%')})`
        : '';
    console.log(`  ${LABELS[mode].padEnd(52)} ${m.toFixed(2).padStart(7)} µs/call${vsOff}   [${runs.map((v) => v.toFixed(2)).join(' ')}]`);
  }
}

function signed(value: number, unit: string): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(1)}${unit}`;
}

void main();
