import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { InvalidHandlerSignatureError, McpApplication, McpContext, McpModule, Prompt, Tool } from '../../src';
import { parameterNames } from '../../src/registry/handler-parameters';
import { connect } from '../helpers/in-memory';

// Handlers in the wrong order are found at bootstrap, not as a crash on the first call. Under tsx,
// esbuild and vitest there are no parameter types: ts-jest emits them, so these tests delete them.

type AnyClass = abstract new (...args: never[]) => unknown;
const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };

/** Deletes the `design:*` entries of a class's methods, as tsx leaves them. */
function stripDesignMetadata(cls: AnyClass): AnyClass {
  for (const member of Object.getOwnPropertyNames(cls.prototype))
    for (const k of Reflect.getOwnMetadataKeys(cls.prototype as object, member))
      if (typeof k === 'string' && k.startsWith('design:')) Reflect.deleteMetadata(k, cls.prototype as object, member);
  return cls;
}

async function bootstrapError(providers: AnyClass[]): Promise<Error | undefined> {
  @McpModule({ providers: providers as never[] })
  class M {}
  return McpApplication.create(M, { logger: quiet }).then(
    (app) => void app.close(),
    (e: unknown) => e as Error,
  );
}

class GreetInput {
  @IsString() name!: string;
}
class OtherInput {
  @IsString() other!: string;
}

describe('a handler whose parameters are in the wrong order is a definition error at bootstrap', () => {
  it('without parameter types: the context named first, while the input option names a class', async () => {
    @injectable()
    class Greeter {
      @Tool({ input: GreetInput })
      greet(ctx: McpContext, input: GreetInput) {
        return `${input.name} ${ctx.requestId}`;
      }
    }
    const error = await bootstrapError([stripDesignMetadata(Greeter)]);
    expect(error).toBeInstanceOf(InvalidHandlerSignatureError);
    expect(error?.message).toBe(
      'Greeter.greet: its first parameter is named ctx, but mcpkit passes the input (GreetInput) first and the context last, ' +
        'so ctx would receive the arguments. Declare it as greet(input: GreetInput, ctx: McpContext).',
    );
  });

  it('without parameter types: a lone ctx parameter, while the input option names a class', async () => {
    class Clock {
      @Prompt({ input: GreetInput })
      now(_ctx: McpContext) {
        return 'now';
      }
    }
    const error = await bootstrapError([stripDesignMetadata(Clock)]);
    expect(error).toBeInstanceOf(InvalidHandlerSignatureError);
    expect(error?.message).toMatch(
      /^Clock\.now: its first parameter is named _ctx, .* or pass `input: null` for a method that takes only the context\.$/,
    );
  });

  it('without parameter types: `input: null` on a method with an input parameter', async () => {
    class Clock {
      @Tool({ input: null })
      now(input: GreetInput, ctx: McpContext) {
        return `${input.name} ${ctx.requestId}`;
      }
    }
    const error = await bootstrapError([stripDesignMetadata(Clock)]);
    expect(error).toBeInstanceOf(InvalidHandlerSignatureError);
    expect(error?.message).toMatch(
      /^Clock\.now: `input: null` says the method takes only the context, but it declares 2 parameters \(input, ctx\)/,
    );
  });

  it('with parameter types: an input option that names another class than the parameter, or the context', async () => {
    class Mismatch {
      @Tool({ input: OtherInput })
      greet(input: GreetInput) {
        return input.name;
      }
    }
    const mismatch = await bootstrapError([Mismatch]);
    expect(mismatch).toBeInstanceOf(InvalidHandlerSignatureError);
    expect(mismatch?.message).toBe(
      'Mismatch.greet: `input: OtherInput` is declared, but the first parameter is typed GreetInput: ' +
        'the method would receive a OtherInput where it expects a GreetInput. Make them the same class.',
    );
    class ContextOnly {
      @Tool({ input: GreetInput })
      greet(ctx: McpContext) {
        return ctx.requestId;
      }
    }
    const contextOnly = await bootstrapError([ContextOnly]);
    expect(contextOnly).toBeInstanceOf(InvalidHandlerSignatureError);
    expect(contextOnly?.message).toMatch(/^ContextOnly\.greet: `input: GreetInput` is declared, but the first parameter is the context/);
  });

  it('serves handlers in the right order, an input parameter named "context" included', async () => {
    @injectable()
    class Right {
      @Tool({ input: GreetInput })
      greet(input: GreetInput, ctx: McpContext) {
        return `hello ${input.name} ${ctx instanceof McpContext}`;
      }
      @Tool({ input: GreetInput })
      summarize(context: GreetInput) {
        return `summary of ${context.name}`;
      }
      @Tool({ input: null })
      now(ctx: McpContext) {
        return `now ${ctx instanceof McpContext}`;
      }
    }
    @McpModule({ providers: [stripDesignMetadata(Right) as never] })
    class M {}
    const { app, client } = await connect(M);
    const text = async (name: string, args: object) =>
      ((await client.request('tools/call', { name, arguments: args })) as { content: { text: string }[] }).content[0].text;
    expect(await text('greet', { name: 'Ada' })).toBe('hello Ada true');
    expect(await text('summarize', { name: 'Ada' })).toBe('summary of Ada');
    expect(await text('now', {})).toBe('now true');
    await app.close();
  });
});

describe('parameterNames', () => {
  it('reads plain, async, generator, defaulted and rest parameters; gives up on destructuring', () => {
    class C {
      a(input: unknown, ctx: unknown) {
        return [input, ctx];
      }
      async b(ctx: unknown) {
        return ctx;
      }
      async *c(input: unknown, ctx = (() => 1)()) {
        yield [input, ctx];
      }
      d(...args: unknown[]) {
        return args;
      }
      e({ name }: { name: string }) {
        return name;
      }
      f() {
        return 1;
      }
    }
    const p = C.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((m) => parameterNames(p[m]))).toEqual([
      ['input', 'ctx'],
      ['ctx'],
      ['input', 'ctx'],
      ['args'],
      undefined,
      [],
    ]);
  });
});
