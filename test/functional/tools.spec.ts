import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { injectable } from 'tsyringe';
import { audio, EmptyInput, embeddedResource, image, McpError, McpModule, resourceLink, text, Tool, ToolError } from '../../src';
import { connect } from '../helpers/in-memory';

class Inner {
  @IsInt() @Min(1) n!: number;
}
class Input {
  @IsString() s!: string;
  @IsOptional() @ValidateNested() @Type(() => Inner) inner?: Inner;
}
class Out {
  @IsString() id!: string;
  @IsInt() size!: number;
}

@injectable()
class Tools {
  received: unknown[] = [];

  @Tool() plain(_: EmptyInput) {
    return 'hello';
  }
  @Tool() blocks(_: EmptyInput) {
    return [
      text('a'),
      image(new Uint8Array([1, 2]), 'image/png'),
      audio('AAA=', 'audio/wav'),
      resourceLink('x://1', 'one'),
      embeddedResource('x://2', 'body', 'text/plain'),
    ];
  }
  @Tool() full(_: EmptyInput) {
    return { content: [{ type: 'text', text: 'as is' }], structuredContent: { k: 1 }, _meta: { m: true } };
  }
  @Tool() nothing(_: EmptyInput) {
    return undefined;
  }
  @Tool() json(_: EmptyInput) {
    return { a: [1, 2] };
  }
  @Tool({ output: Out }) structured(_: EmptyInput) {
    return { id: 'x', size: 3 };
  }
  @Tool({ output: Out }) wrongStructured(_: EmptyInput) {
    return { id: 'x', size: 'big' };
  }
  @Tool() echo(input: Input) {
    this.received.push(input);
    return `got ${input.s}`;
  }
  @Tool() async *stream(_: EmptyInput) {
    yield 'one';
    yield text('two');
    yield [text('three'), text('four')];
  }
  @Tool() toolError(_: EmptyInput) {
    throw new ToolError('the disk is full');
  }
  @Tool() mcpError(_: EmptyInput) {
    throw new McpError(-32042, 'needs url elicitation', { url: 'https://x' });
  }
  @Tool() crash(_: EmptyInput) {
    throw new Error('stack-secret');
  }
}

@McpModule({ providers: [Tools] })
class ToolsModule {}

describe('tools (in-memory client)', () => {
  let env: Awaited<ReturnType<typeof connect>>;
  beforeAll(async () => (env = await connect(ToolsModule)));
  afterAll(() => env.app.close());
  const call = (name: string, args: Record<string, unknown> = {}) => env.client.request('tools/call', { name, arguments: args });

  it('maps a string to one text block', async () => {
    expect(await call('plain')).toEqual({ content: [{ type: 'text', text: 'hello' }] });
  });

  it('maps content helpers to their blocks', async () => {
    expect(await call('blocks')).toEqual({
      content: [
        { type: 'text', text: 'a' },
        { type: 'image', data: 'AQI=', mimeType: 'image/png' },
        { type: 'audio', data: 'AAA=', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'x://1', name: 'one' },
        { type: 'resource', resource: { uri: 'x://2', text: 'body', mimeType: 'text/plain' } },
      ],
    });
  });

  it('passes a full CallToolResult through', async () => {
    expect(await call('full')).toEqual({ content: [{ type: 'text', text: 'as is' }], structuredContent: { k: 1 }, _meta: { m: true } });
  });

  it('maps undefined to no content and other values to their JSON', async () => {
    expect(await call('nothing')).toEqual({ content: [] });
    expect(await call('json')).toEqual({ content: [{ type: 'text', text: '{"a":[1,2]}' }] });
  });

  it('maps a declared output class to structuredContent plus its JSON, validated', async () => {
    expect(await call('structured')).toEqual({
      content: [{ type: 'text', text: '{"id":"x","size":3}' }],
      structuredContent: { id: 'x', size: 3 },
    });
    expect(await call('wrongStructured')).toEqual({
      content: [{ type: 'text', text: 'Tool "wrongStructured" produced invalid output' }],
      isError: true,
    });
    expect(env.logged.some((l) => l.includes('Tools.wrongStructured') && l.includes('size'))).toBe(true);
  });

  it('collects what an async generator yields into one result', async () => {
    expect(await call('stream')).toEqual({ content: ['one', 'two', 'three', 'four'].map((t) => ({ type: 'text', text: t })) });
  });

  it('validates input into a class instance, nested members included', async () => {
    expect(await call('echo', { s: 'x', inner: { n: 2 } })).toEqual({ content: [{ type: 'text', text: 'got x' }] });
    const tools = env.app.get(Tools);
    const last = tools.received.at(-1) as Input;
    expect(last).toBeInstanceOf(Input);
    expect(last.inner).toBeInstanceOf(Inner);
  });

  it('reports every invalid field with its path and constraint', async () => {
    const result = (await call('echo', { s: 5, inner: { n: 0 } })) as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe(
      'Invalid arguments for tool "echo":\n- s: s must be a string (isString)\n- inner.n: n must not be less than 1 (min)',
    );
  });

  it('maps ToolError to its message, McpError to a JSON-RPC error, anything else to a generic message', async () => {
    expect(await call('toolError')).toEqual({ content: [{ type: 'text', text: 'the disk is full' }], isError: true });
    await expect(call('mcpError')).rejects.toMatchObject({ code: -32042, message: 'needs url elicitation', data: { url: 'https://x' } });
    const crash = (await call('crash')) as { isError: boolean; content: { text: string }[] };
    expect(crash).toEqual({ content: [{ type: 'text', text: 'Tool "crash" failed with an internal error' }], isError: true });
    expect(env.logged.some((l) => l.includes('stack-secret'))).toBe(true);
  });

  it('rejects an unknown tool and bad params with -32602', async () => {
    await expect(call('nope')).rejects.toMatchObject({ code: -32602, message: 'Unknown tool: nope' });
    await expect(env.client.request('tools/call', { name: 'plain', arguments: 'x' })).rejects.toMatchObject({ code: -32602 });
  });
});
