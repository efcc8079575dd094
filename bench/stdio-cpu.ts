import 'reflect-metadata';
import { PassThrough, Writable } from 'node:stream';
import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { McpApplication, McpModule, Tool } from '../src';
import { stdio } from '../src/stdio';

/**
 * CPU per message of mcpkit's stdio path, in one process and without the noise of a second one: the
 * stdio transport reads requests from a PassThrough and writes to a Writable that answers each
 * response with the next request (64 in flight, the requests of one turn in one chunk, as
 * run.ts's stdio workload sends them). The same driver feeds the floor (servers/stdio-floor-server.ts's
 * newline-delimited JSON loop, in-process), so the driver's own cost is in both figures and the
 * difference is what mcpkit adds. Runs alternate; the median of each is printed (and the least CPU: the machine's noise only adds).
 * Run: `node dist/bench/stdio-cpu.js [--modern] [--calls=N] [--runs=N] [--only=mcpkit|floor]`; add
 * `--cpu-prof` before the script for a profile of mcpkit's runs (with `--only=mcpkit`).
 */
const arg = (name: string) => new RegExp(`--${name}=(\\w+)`).exec(process.argv.join(' '))?.[1];
const CALLS = Number(arg('calls') ?? 200_000);
const RUNS = Number(arg('runs') ?? 3);
const ONLY = arg('only');
const MODERN = process.argv.includes('--modern');
const INFLIGHT = 64;
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

class EchoInput {
  @IsString() text!: string;
}

@injectable()
class BenchTools {
  @Tool({ description: 'Echoes its input' })
  echo(input: EchoInput) {
    return input.text;
  }
}

@McpModule({ server: { name: 'stdio-cpu', version: '1.0.0' }, providers: [BenchTools] })
class BenchModule {}

/** A client on the other end of a pair of streams: counts answers and keeps INFLIGHT requests going. */
class Driver {
  readonly input = new PassThrough();
  readonly output: Writable;
  private nextId = 1;
  private answered = 0;
  private outgoing = '';
  private flushing = false;
  private goal = 0;
  private done: () => void = () => undefined;
  private readonly envelope = MODERN ? `,"_meta":${JSON.stringify(META)}` : '';

  constructor() {
    this.output = new Writable({
      write: (chunk: Buffer | string, _encoding, callback) => {
        const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
        for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) this.onAnswer();
        if (!text.includes('"text":"hello"') && this.answered > 1) throw new Error(`bad answer: ${text.slice(0, 200)}`);
        callback();
      },
    });
  }

  /** Sends the handshake; resolves on its answer. */
  async handshake(): Promise<void> {
    const first = MODERN
      ? { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: META } }
      : {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
        };
    await this.run(1, () => this.input.write(`${JSON.stringify(first)}\n`));
    if (!MODERN) this.input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }

  /** `calls` tools/call, INFLIGHT at a time; resolves when all are answered. */
  calls(calls: number): Promise<void> {
    return this.run(calls, () => {
      for (let i = 0; i < Math.min(INFLIGHT, calls); i++) this.send();
    });
  }

  private run(calls: number, start: () => void): Promise<void> {
    this.answered = 0;
    this.goal = calls;
    return new Promise((resolve) => {
      this.done = resolve;
      start();
      this.flush();
    });
  }

  private send(): void {
    this.outgoing += `{"jsonrpc":"2.0","id":${this.nextId++},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}${this.envelope}}}\n`;
  }

  private onAnswer(): void {
    this.answered++;
    if (this.answered === this.goal) return this.done();
    if (this.answered + INFLIGHT <= this.goal) this.send();
    if (!this.flushing) {
      this.flushing = true;
      // Another process would read our answers and write its next requests in a turn of its own.
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushing = false;
    const out = this.outgoing;
    if (!out) return;
    this.outgoing = ''; // before the write: the floor answers (and we send more) within it
    this.input.write(out);
  }
}

/** servers/stdio-floor-server.ts's loop, on the driver's streams. */
function floor(driver: Driver): void {
  let buffer = '';
  driver.input.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let out = '';
    let start = 0;
    for (let nl = buffer.indexOf('\n', start); nl >= 0; nl = buffer.indexOf('\n', start)) {
      const message = JSON.parse(buffer.slice(start, nl)) as {
        jsonrpc?: unknown;
        id?: string | number;
        method?: string;
        params?: { name?: unknown; arguments?: { text?: unknown } };
      };
      start = nl + 1;
      if (message.id === undefined || message.jsonrpc !== '2.0') continue;
      const result =
        message.method === 'tools/call' && message.params?.name === 'echo'
          ? { content: [{ type: 'text', text: String(message.params.arguments?.text) }] }
          : {};
      out += `${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`;
    }
    buffer = buffer.slice(start);
    if (out) driver.output.write(out);
  });
}

interface Figure {
  cpu: number;
  rate: number;
}

async function measure(impl: 'mcpkit' | 'floor'): Promise<Figure> {
  const driver = new Driver();
  let app: McpApplication | undefined;
  if (impl === 'floor') floor(driver);
  else {
    app = await McpApplication.create(BenchModule, { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
    await app.listen(stdio({ input: driver.input, output: driver.output, redirectConsole: false }));
  }
  await driver.handshake();
  await driver.calls(10_000); // warm-up
  const cpu = process.cpuUsage();
  const started = performance.now();
  await driver.calls(CALLS);
  const seconds = (performance.now() - started) / 1e3;
  const used = process.cpuUsage(cpu);
  driver.input.end();
  await app?.close();
  return { cpu: (used.user + used.system) / CALLS, rate: CALLS / seconds };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const impls = ONLY ? [ONLY as 'mcpkit' | 'floor'] : (['floor', 'mcpkit'] as const);
  const figures: Record<string, Figure[]> = { floor: [], mcpkit: [] };
  for (let i = 0; i < RUNS; i++) for (const impl of impls) figures[impl].push(await measure(impl));
  // stdout: listen(stdio()) sends console.log to stderr.
  const lines = [`stdio tools/call in-process, ${CALLS} calls, ${INFLIGHT} in flight${MODERN ? ', 2026-07-28' : ''}, median of ${RUNS}:`];
  for (const impl of impls) {
    const f = figures[impl];
    const cpu = f.map((x) => x.cpu);
    const rate = median(f.map((x) => x.rate)).toFixed(0);
    lines.push(
      `  ${impl.padEnd(7)} ${median(cpu).toFixed(2)} µs CPU/msg (best ${Math.min(...cpu).toFixed(2)})  ${rate} msg/s (driver included)`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

void main();
