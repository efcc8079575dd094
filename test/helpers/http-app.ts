import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpContext, McpModule, Resource, Tool } from '../../src';
import type { HttpOptions } from '../../src/http';
import { deferred } from './wait-for';
import { httpServer, httpTransport } from '../../src/http';

export class SlowInput {
  @IsOptional() @IsInt() @Min(0) @Max(5000) ms?: number;
  @IsOptional() @IsString() text?: string;
}

@injectable()
export class HttpTestTools {
  @Tool({ description: 'Answers at once' })
  quick(_: EmptyInput) {
    return 'quick';
  }

  @Tool({ description: 'Logs, then answers' })
  async chatty(_: EmptyInput, ctx: McpContext) {
    await ctx.log.info('hello');
    return 'chatty';
  }

  @Tool({ description: 'Waits, then answers' })
  async slow(input: SlowInput) {
    await new Promise((r) => setTimeout(r, input.ms ?? 100));
    return input.text ?? 'slow';
  }

  /** Resolved when `held` starts; `held` answers once the test resolves `release` (resolve via app.get). */
  readonly heldStarted = deferred();
  readonly release = deferred();

  @Tool({ description: 'Answers when the test releases it' })
  async held(_: EmptyInput) {
    this.heldStarted.resolve();
    await this.release.promise;
    return 'released';
  }

  @Tool({ description: 'Once the test releases it, logs, then answers' })
  async heldThenLogs(_: EmptyInput, ctx: McpContext) {
    this.heldStarted.resolve();
    await this.release.promise;
    await ctx.log.info('released');
    return 'logged';
  }

  @Tool({ description: 'The protocol version the request is served under' })
  version(_: EmptyInput, ctx: McpContext) {
    return ctx.session.protocolVersion;
  }

  @Resource({ uri: 'test://r', mimeType: 'text/plain' })
  r() {
    return 'r';
  }
}

@McpModule({ providers: [HttpTestTools], server: { name: 'http-test', version: '1.0.0' } })
export class HttpTestModule {}

export const ACCEPT_BOTH = 'application/json, text/event-stream';

export function initializeBody(id: string | number = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
}

function quietHttpTestApp(): Promise<McpApplication> {
  return McpApplication.create(HttpTestModule, { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
}

/** An application with its HTTP transport, not listening (tests drive `callback()`). */
export async function httpApp(options: HttpOptions = {}) {
  const app = await quietHttpTestApp();
  const transport = httpTransport(app, options);
  return { app, transport, callback: transport.callback(), tools: app.get(HttpTestTools) };
}

/** An application serving HTTP on a loopback server of its own, on a free port (`app.listen(httpServer(...))`). */
export async function listeningHttpApp(options: HttpOptions = {}) {
  const app = await quietHttpTestApp();
  const http = await app.listen(httpServer({ port: 0, ...options }));
  return { app, url: http.url, port: http.port, tools: app.get(HttpTestTools) };
}

/** Parses an SSE body into its events. */
export function parseSse(body: string): { id?: string; retry?: number; data: string; event?: string }[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() && !block.startsWith(':'))
    .map((block) => {
      const event: { id?: string; retry?: number; data: string; event?: string } = { data: '' };
      for (const line of block.split('\n')) {
        const [field, ...rest] = line.split(':');
        const value = rest.join(':').replace(/^ /, '');
        if (field === 'id') event.id = value;
        else if (field === 'retry') event.retry = Number(value);
        else if (field === 'data') event.data += value;
        else if (field === 'event') event.event = value;
      }
      return event;
    });
}
