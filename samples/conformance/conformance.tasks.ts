import { IsNumber, IsOptional, IsString } from 'class-validator';
import { EmptyInput, Field, McpContext, McpError, Tool } from '../../src';

/** Waits `ms`, or less when the task is cancelled. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export class GreetInput {
  @Field('Who to greet') @IsString() name!: string;
}

export class SlowComputeInput {
  @Field('How long the computation takes, in seconds') @IsNumber() seconds!: number;
  @Field('A label echoed in the result') @IsOptional() @IsString() label?: string;
}

export class FileInput {
  @Field('The file to delete') @IsString() filename!: string;
}

const confirmForm = { type: 'object' as const, properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };

/** The fixtures of the tasks-* scenarios (the io.modelcontextprotocol/tasks extension, SEP-2663). */
export class TaskConformanceTools {
  @Tool({ description: 'Greets someone; never a task' })
  greet(input: GreetInput) {
    return `Hello, ${input.name}!`;
  }

  @Tool({ description: 'Computes for `seconds` seconds; runs as a task when the client supports tasks', taskSupport: 'optional' })
  async slow_compute(input: SlowComputeInput, ctx: McpContext) {
    await sleep(input.seconds * 1000, ctx.signal);
    if (ctx.signal.aborted) return { isError: true, content: [{ type: 'text' as const, text: 'Cancelled' }] };
    return `Computed ${input.label ?? 'result'} in ${input.seconds} s`;
  }

  @Tool({ description: 'A job whose task fails with a JSON-RPC error', taskSupport: 'optional' })
  async protocol_error_job(_: EmptyInput, ctx: McpContext) {
    await sleep(500, ctx.signal);
    throw new McpError(-32603, 'The job failed with a protocol error');
  }

  @Tool({ description: 'Deletes a file once the user confirms (asks inside its task)', taskSupport: 'optional' })
  async confirm_delete(input: FileInput, ctx: McpContext) {
    const answer = await ctx.elicit({ message: `Delete ${input.filename}?`, requestedSchema: confirmForm });
    const confirmed = answer.action === 'accept' && answer.content?.confirm === true;
    return confirmed ? `Deleted ${input.filename}` : `Kept ${input.filename}`;
  }

  @Tool({ description: 'Asks two questions at once inside its task', taskSupport: 'optional' })
  async multi_input(_: EmptyInput, ctx: McpContext) {
    const [first, second] = await Promise.all([
      ctx.elicit({
        message: 'First: your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' }, confirm: { type: 'boolean' } } },
      }),
      ctx.elicit({
        message: 'Second: confirm?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' }, confirm: { type: 'boolean' } } },
      }),
    ]);
    return `Answers: ${first.action}, ${second.action}`;
  }

  @Tool({ description: 'Asks for a name before its task is created (multi round-trip), then greets in the task', taskSupport: 'required' })
  async test_tool_with_task(_: EmptyInput, ctx: McpContext) {
    const answer = await ctx.elicit(
      { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      { key: 'user_name', beforeTask: true },
    );
    const name = answer.action === 'accept' && typeof answer.content?.name === 'string' ? answer.content.name : 'stranger';
    await sleep(300, ctx.signal);
    return `Hello from the task, ${name}!`;
  }
}
