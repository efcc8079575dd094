import 'reflect-metadata';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { injectable } from 'tsyringe';
import type { JwtVerifierOptions, ResourceServerOptions } from '../../src/auth';
import { McpApplication, McpContext, McpModule, TelemetryOptions, Tool } from '../../src';
import { MODE, reportReady, TOOL_COUNT, WITH_FLOOD, WITH_TASKS } from './ipc';

export class EchoInput {
  @IsString() text!: string;
}

@injectable()
class BenchTools {
  @Tool({ description: 'Echoes its input' })
  echo(input: EchoInput) {
    return input.text;
  }

  filler(input: EchoInput) {
    return input.text;
  }
}

/** The task workload's tool (left out of the tools/list workload, which must list exactly TOOLS tools). */
@injectable()
class TaskBenchTools {
  @Tool({ description: 'A unit of work that runs as a task', taskSupport: 'optional' })
  work(input: EchoInput) {
    return `done ${input.text}`;
  }

  @Tool({
    name: 'work_task',
    description: 'A unit of work that always runs as a task (2026-07-28 tasks extension)',
    taskSupport: 'required',
  })
  workTask(input: EchoInput) {
    return `done ${input.text}`;
  }
}

export class FloodInput {
  @IsInt() @Min(1) @Max(10_000) count!: number;
  @IsInt() @Min(1) @Max(1_048_576) size!: number;
  /** The character the events are made of: one above U+00FF makes every stored event a two-byte string. */
  @IsString() char!: string;
}

/** The SSE retention workload's tool (FLOOD=1): many large events on its request stream, then its result. */
@injectable()
class FloodBenchTools {
  @Tool({ description: 'Sends `count` log messages of `size` characters on its request stream' })
  async flood(input: FloodInput, ctx: McpContext) {
    const data = input.char.repeat(input.size);
    // Each message is serialized (and so stored) anew: the store holds `count` distinct strings.
    for (let i = 0; i < input.count; i++) await ctx.log.info(data, `flood ${i}`);
    return `flooded ${input.count}`;
  }
}

// The tools/list workload: TOOLS - 1 more tools, declared the way a decorator would.
const descriptor = Object.getOwnPropertyDescriptor(BenchTools.prototype, 'filler')!;
Reflect.defineMetadata('design:paramtypes', [EchoInput], BenchTools.prototype, 'filler');
for (let i = 1; i < TOOL_COUNT; i++)
  Tool({ name: `tool_${i}`, description: `Filler tool number ${i}, echoing its input` })(BenchTools.prototype, 'filler', descriptor);

@McpModule({
  server: { name: 'mcpkit-bench', version: '1.0.0' },
  providers: [BenchTools, ...(WITH_TASKS ? [TaskBenchTools] : []), ...(WITH_FLOOD ? [FloodBenchTools] : [])],
  pageSize: 1000,
})
class BenchModule {}

async function main(): Promise<void> {
  const redis = process.env.REDIS_URL;
  const app = await McpApplication.create(BenchModule, {
    logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
    // Loaded only when used, as an application would: a stdio server without Redis never loads ioredis.
    ...(redis ? { scaleOut: (await import('../../src/redis')).redisScaleOut({ redis, keyPrefix: 'bench:' }) } : {}),
    // One benchmark client runs many tasks at once; the per-owner limit would turn some away.
    tasks: { maxActivePerOwner: 100_000 },
    ...benchTelemetry(),
  });
  // The same echo registered at runtime, validated by its JSON Schema (Ajv) instead of an input class.
  if (process.env.RUNTIME_TOOL) {
    app.addTool({
      name: 'echo_schema',
      description: 'Echoes its input',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      handler: (args) => String(args.text),
    });
  }
  // Each front door from its own entry point, imported by the mode that serves it: a stdio server loads no HTTP code.
  if (MODE === 'stdio') {
    const { stdio } = await import('../../src/stdio');
    await app.listen(stdio());
    return;
  }
  const { httpServer } = await import('../../src/http');
  const http = await app.listen(httpServer({ port: 0, sessions: MODE === 'sessions', keepAliveMs: 0, auth: benchAuth() }));
  reportReady({ port: http.port });
}

/**
 * The telemetry workload (TELEMETRY=off|propagation|full). For full, TELEMETRY_SDK says what is behind
 * @opentelemetry/api: `drop` (default) the SDK's tracer and meter providers with every span sampled and
 * handed to a batch processor whose exporter drops them (export cost aside); `bare` the same providers
 * with no span processor nor metric reader (spans and metrics made, never exported); `none` no SDK at
 * all (the API's global no-op providers, as in an application that registered none).
 */
function benchTelemetry(): { telemetry?: TelemetryOptions } {
  const mode = process.env.TELEMETRY as TelemetryOptions['mode'] | undefined;
  if (!mode) return {};
  const sdk = process.env.TELEMETRY_SDK ?? 'drop';
  if (mode !== 'full' || sdk === 'none') return { telemetry: { mode } };
  const { BasicTracerProvider, BatchSpanProcessor } =
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: only the full-telemetry workload needs the OpenTelemetry SDK
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: only the full-telemetry workload needs the OpenTelemetry SDK
  const { MeterProvider } = require('@opentelemetry/sdk-metrics') as typeof import('@opentelemetry/sdk-metrics');
  const drop = { export: (_: unknown, done: (r: { code: number }) => void) => done({ code: 0 }), shutdown: async () => undefined };
  const spanProcessors = sdk === 'bare' ? [] : [new BatchSpanProcessor(drop)];
  const tracerProvider = new BasicTracerProvider({ spanProcessors });
  return { telemetry: { mode, tracerProvider, meterProvider: new MeterProvider() } };
}

/** The auth workload: JWT verification with a local key set (AUTH_JWKS), as with JWKS keys once cached. */
function benchAuth(): ResourceServerOptions | undefined {
  const jwks = process.env.AUTH_JWKS;
  if (!jwks) return undefined;
  // Loaded only when used, as an application would: the cold start of this stdio server is measured
  // against a process that loads mcpkit's peers only, and a stdio server has no bearer tokens to check.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: only the auth workload verifies tokens
  const { JwtVerifier } = require('../../src/auth') as typeof import('../../src/auth');
  const issuer = process.env.AUTH_ISSUER!;
  // AUTH_CACHE=0: every request's token verified again (the cost the token cache saves).
  const tokenCacheMaxBytes = process.env.AUTH_CACHE === '0' ? 0 : undefined;
  return {
    authorizationServers: [issuer],
    resource: process.env.AUTH_RESOURCE!,
    verifier: new JwtVerifier({ issuer, jwks: JSON.parse(jwks) as JwtVerifierOptions['jwks'] }),
    tokenCacheMaxBytes,
    // AUTH_DPOP=1: DPoP-bound tokens only, a proof checked on every request.
    ...(process.env.AUTH_DPOP === '1' ? { dpop: { mode: 'required' as const } } : {}),
  };
}

process.on('SIGINT', () => process.exit(0));
void main();
