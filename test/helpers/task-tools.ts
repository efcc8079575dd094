import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import { injectable } from 'tsyringe';
import { EmptyInput, Field, McpContext, McpError, McpModule, text, Tool, ToolError } from '../../src';

export class WaitInput {
  @IsOptional() @IsInt() @Min(0) @Max(10_000) ms?: number;
}

export class StreamInput {
  @IsInt() @Min(1) @Max(100) count!: number;
  @IsOptional() @IsInt() @Min(0) @Max(1000) gapMs?: number;
  @IsOptional() @IsInt() failAfter?: number;
}

export class Approve {
  @Field({ default: false }) @IsBoolean() approved!: boolean;
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    });
  });

/** Tools that exercise every task path. */
@injectable()
export class TaskTools {
  aborted: string[] = [];
  finishedAfterCancel = 0;

  @Tool({ description: 'Waits, reporting progress', taskSupport: 'optional', immediateResponse: 'Started waiting; I will report back.' })
  async wait(input: WaitInput, ctx: McpContext) {
    const ms = input.ms ?? 50;
    await ctx.progress(0, 2);
    try {
      await pause(ms / 2, ctx.signal);
      await ctx.progress(1, 2);
      await pause(ms / 2, ctx.signal);
    } catch (error) {
      this.aborted.push(String(ctx.requestId));
      throw error;
    }
    await ctx.progress(2, 2);
    return `waited ${ms}`;
  }

  @Tool({ description: 'Ignores cancellation and finishes anyway', taskSupport: 'optional' })
  async stubborn(input: WaitInput) {
    await pause(input.ms ?? 80);
    this.finishedAfterCancel++;
    return 'finished anyway';
  }

  @Tool({ description: 'Answers at once', taskSupport: 'optional' })
  quick(_: EmptyInput) {
    return { content: [text('quick')], _meta: { mine: 1 } };
  }

  @Tool({ description: 'Must run as a task', taskSupport: 'required' })
  mustTask(_: EmptyInput) {
    return 'ran as a task';
  }

  @Tool({ description: 'Never a task' })
  never(_: EmptyInput) {
    return 'plain';
  }

  @Tool({ description: 'Reports a tool error', taskSupport: 'optional' })
  broken(_: EmptyInput): string {
    throw new ToolError('the widget is broken');
  }

  @Tool({ description: 'Fails with a protocol error', taskSupport: 'optional' })
  protocolError(_: EmptyInput): string {
    throw new McpError(-32602, 'bad widget id', { id: 7 });
  }

  @Tool({ description: 'Streams numbered segments', taskSupport: 'optional' })
  async *stream(input: StreamInput, ctx: McpContext) {
    for (let i = 1; i <= input.count; i++) {
      if (input.failAfter !== undefined && i > input.failAfter) throw new ToolError(`stream broke after ${input.failAfter}`);
      if (input.gapMs) await pause(input.gapMs, ctx.signal);
      yield `segment ${i}`;
    }
  }

  @Tool({ description: 'Works a little, then asks the user', taskSupport: 'optional' })
  async askLater(input: WaitInput, ctx: McpContext) {
    await pause(input.ms ?? 100);
    const answer = await ctx.elicitForm('Approve now?', Approve);
    return `approved=${answer.content?.approved ?? false}`;
  }

  @Tool({ description: 'Asks the user before finishing', taskSupport: 'optional' })
  async ask(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicitForm('Approve?', Approve);
    return `approved=${answer.content?.approved ?? false}`;
  }
}

@McpModule({ providers: [TaskTools], server: { name: 'tasks-test', version: '1.0.0' } })
export class TaskModule {}
