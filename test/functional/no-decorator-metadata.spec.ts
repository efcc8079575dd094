import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsEnum, IsIn, IsInt, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { inject, injectable } from 'tsyringe';
import {
  Complete,
  EmptyInput,
  Field,
  InvalidHandlerSignatureError,
  JsonSchema,
  McpApplication,
  McpContext,
  McpModule,
  McpDefinitionError,
  MissingDesignMetadataError,
  MissingNestedTypeError,
  Prompt,
  ReflectMetadataMissingError,
  Resource,
  Tool,
  UnresolvableProviderError,
} from '../../src';
import { connect } from '../helpers/in-memory';

// ts-jest emits decorator metadata; these tests remove it afterwards, so that the classes look as
// tsx, esbuild or vitest leave them. test/interop/tsx-runtime.spec.ts runs the real thing.

type AnyClass = abstract new (...args: never[]) => unknown;
const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };

/** Deletes every `design:*` entry of a class: its constructor, its methods and the named properties. */
function stripDesignMetadata(cls: AnyClass, properties: string[] = []): void {
  const strip = (target: object, key?: string) => {
    for (const k of key === undefined ? Reflect.getOwnMetadataKeys(target) : Reflect.getOwnMetadataKeys(target, key)) {
      if (typeof k === 'string' && k.startsWith('design:')) {
        if (key === undefined) Reflect.deleteMetadata(k, target);
        else Reflect.deleteMetadata(k, target, key);
      }
    }
  };
  strip(cls);
  for (const member of [...Object.getOwnPropertyNames(cls.prototype), ...properties]) strip(cls.prototype as object, member);
}

const failure = (module: AnyClass) =>
  McpApplication.create(module as never, { logger: quiet }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );

class Address {
  @IsString() city!: string;
}
class GreetInput {
  @IsString() name!: string;
  @IsOptional() @IsInt() @Min(1) times?: number;
}
class Greeting {
  @IsString() text!: string;
}
class UserVars {
  @IsString() id!: string;
}
class TopicArgs {
  @IsString() topic!: string;
}
stripDesignMetadata(GreetInput, ['name', 'times']);
stripDesignMetadata(Greeting, ['text']);
stripDesignMetadata(UserVars, ['id']);
stripDesignMetadata(TopicArgs, ['topic']);
stripDesignMetadata(Address, ['city']);

describe('without decorator metadata (tsx, esbuild, vitest)', () => {
  it('serves tools, templates and prompts whose classes are named with `input` / `output`, context-only handlers, completers and static resources', async () => {
    class Handlers {
      @Tool({ input: GreetInput, output: Greeting })
      greet(input: GreetInput, _ctx: McpContext) {
        return { text: `Hello, ${input.name} x${input.times ?? 1}` };
      }
      @Tool({ input: null })
      whoCalls(ctx: McpContext) {
        return ctx instanceof McpContext ? `context, cancelled=${ctx.signal.aborted}` : 'not a context';
      }
      @Tool({ input: EmptyInput })
      nothing(input: EmptyInput, ctx: McpContext) {
        return `${input instanceof EmptyInput} ${ctx instanceof McpContext}`;
      }
      @Resource({ uriTemplate: 'users://{id}', input: UserVars })
      user(vars: UserVars, ctx: McpContext) {
        return `${vars.constructor.name} ${vars.id} ${ctx instanceof McpContext}`;
      }
      @Resource({ uriTemplate: 'raw://{x}' })
      raw(vars: { x: string }) {
        return `raw ${vars.x}`;
      }
      @Resource({ uriTemplate: 'ctx://{x}', input: null })
      contextOnly(ctx: McpContext) {
        return `ctx ${ctx instanceof McpContext}`;
      }
      @Resource({ uri: 'static://index' })
      index(ctx: McpContext) {
        return `static ${ctx instanceof McpContext}`;
      }
      @Prompt({ input: TopicArgs })
      write(args: TopicArgs) {
        return `Write about ${args.topic} (${args.constructor.name})`;
      }
      @Prompt({ input: null })
      hello(ctx: McpContext) {
        return `hello ${ctx instanceof McpContext}`;
      }
      @Complete({ prompt: 'write', argument: 'topic' })
      topics(value: string, ctx: McpContext) {
        return ['tea', 'tide', 'toast'].filter((t) => t.startsWith(value) && ctx instanceof McpContext);
      }
    }
    stripDesignMetadata(Handlers);
    expect(Reflect.getMetadata('design:paramtypes', Handlers.prototype, 'greet')).toBeUndefined();
    @McpModule({ providers: [Handlers] })
    class M {}

    const { client } = await connect(M);
    const tools = (await client.request('tools/list')) as { tools: { name: string; inputSchema: object; outputSchema?: object }[] };
    expect(tools.tools.find((t) => t.name === 'greet')).toMatchObject({
      inputSchema: { type: 'object', properties: { name: { type: 'string' }, times: { type: 'integer', minimum: 1 } }, required: ['name'] },
      outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    expect(tools.tools.find((t) => t.name === 'whoCalls')?.inputSchema).toMatchObject({ type: 'object', properties: {} });

    const call = (name: string, args: object = {}) => client.request('tools/call', { name, arguments: args });
    expect(await call('greet', { name: 'Ada', times: 2 })).toMatchObject({ structuredContent: { text: 'Hello, Ada x2' } });
    expect(await call('greet', { name: 'Ada', times: 0 })).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('times') }],
    });
    expect(await call('whoCalls')).toMatchObject({ content: [{ type: 'text', text: 'context, cancelled=false' }] });
    expect(await call('nothing')).toMatchObject({ content: [{ text: 'true true' }] });

    const read = (uri: string) => client.request('resources/read', { uri }) as Promise<{ contents: { text: string }[] }>;
    expect((await read('users://u1')).contents[0].text).toBe('UserVars u1 true');
    expect((await read('raw://y')).contents[0].text).toBe('raw y');
    expect((await read('ctx://y')).contents[0].text).toBe('ctx true');
    expect((await read('static://index')).contents[0].text).toBe('static true');

    const prompts = (await client.request('prompts/list')) as { prompts: { name: string; arguments?: object[] }[] };
    expect(prompts.prompts.find((p) => p.name === 'write')?.arguments).toEqual([{ name: 'topic', required: true }]);
    expect(await client.request('prompts/get', { name: 'write', arguments: { topic: 'tides' } })).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'Write about tides (TopicArgs)' } }],
    });
    await expect(client.request('prompts/get', { name: 'write', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    expect(await client.request('prompts/get', { name: 'hello' })).toMatchObject({ messages: [{ content: { text: 'hello true' } }] });
    expect(
      await client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'write' }, argument: { name: 'topic', value: 't' } }),
    ).toMatchObject({
      completion: { values: ['tea', 'tide', 'toast'] },
    });
  });

  it('raises one definition error naming Class.member and both ways out when a handler has neither metadata nor `input`', async () => {
    class Untyped {
      @Tool() greet(input: GreetInput) {
        return input.name;
      }
    }
    stripDesignMetadata(Untyped);
    @McpModule({ providers: [Untyped] })
    class M {}
    const error = await failure(M);
    expect(error).toBeInstanceOf(MissingDesignMetadataError);
    expect(error).toBeInstanceOf(McpDefinitionError);
    expect(error?.message).toMatch(/^Untyped\.greet: /);
    expect(error?.message).toContain('Untyped carries no decorator metadata at all');
    expect(error?.message).toContain(
      'compile with emitDecoratorMetadata (tsc, ts-jest, swc with decoratorMetadata) or pass `input: YourClass` to @Tool',
    );
    expect(error?.message).toContain('`input: null` when the method takes only the context');

    class UntypedPrompt {
      @Prompt() write(args: TopicArgs) {
        return args.topic;
      }
    }
    stripDesignMetadata(UntypedPrompt);
    @McpModule({ providers: [UntypedPrompt] })
    class P {}
    const promptError = await failure(P);
    expect(promptError).toBeInstanceOf(MissingDesignMetadataError);
    expect(promptError?.message).toMatch(/^UntypedPrompt\.write: .*pass `input: YourClass` to @Prompt/);
  });

  it('words the error for one method without types, when the rest of its class has metadata', async () => {
    class Mixed {
      @Tool() typed(input: GreetInput) {
        return input.name;
      }
      @Tool() untyped(input: GreetInput) {
        return input.name;
      }
    }
    Reflect.deleteMetadata('design:paramtypes', Mixed.prototype, 'untyped');
    @McpModule({ providers: [Mixed] })
    class M {}
    const error = await failure(M);
    expect(error).toBeInstanceOf(MissingDesignMetadataError);
    expect(error?.message).toMatch(/^Mixed\.untyped: .*no design-time parameter types were emitted for this method/);
  });

  it('keeps ReflectMetadataMissingError for a missing reflect-metadata, apart from missing design types', async () => {
    @McpModule({ providers: [] })
    class M {}
    const saved = Reflect.getMetadata;
    let error: Error | undefined;
    try {
      (Reflect as { getMetadata?: unknown }).getMetadata = undefined;
      error = await failure(M);
    } finally {
      Reflect.getMetadata = saved;
    }
    expect(error).toBeInstanceOf(ReflectMetadataMissingError);
    expect(error).not.toBeInstanceOf(MissingDesignMetadataError);
  });

  it('still detects a context-only handler from metadata, and refuses `input: null` on a method whose first parameter is an input', async () => {
    class WithMetadata {
      @Tool() detected(ctx: McpContext) {
        return `${ctx instanceof McpContext}`;
      }
    }
    @McpModule({ providers: [WithMetadata] })
    class Ok {}
    const { client } = await connect(Ok);
    expect(await client.request('tools/call', { name: 'detected', arguments: {} })).toMatchObject({ content: [{ text: 'true' }] });

    class Contradiction {
      @Tool({ input: null }) greet(input: GreetInput) {
        return input.name;
      }
    }
    @McpModule({ providers: [Contradiction] })
    class Bad {}
    const error = await failure(Bad);
    expect(error).toBeInstanceOf(InvalidHandlerSignatureError);
    expect(error?.message).toMatch(
      /Contradiction\.greet: `input: null` says the method takes only the context, but its first parameter is typed GreetInput/,
    );
  });

  it('asks for @Type on a nested DTO property without design:type, and validates nested classes and arrays given with @Type', async () => {
    class NoType {
      @ValidateNested() address!: Address;
    }
    stripDesignMetadata(NoType, ['address']);
    class Tools {
      @Tool({ input: NoType }) t(input: NoType) {
        return input.address.city;
      }
    }
    @McpModule({ providers: [Tools] })
    class Bad {}
    const error = await failure(Bad);
    expect(error).toBeInstanceOf(MissingNestedTypeError);
    expect(error?.message).toMatch(/NoType\.address: @ValidateNested .*type was not emitted.*Add @Type\(\(\) => X\)/);

    class Order {
      @ValidateNested() @Type(() => Address) shipTo!: Address;
      @IsArray() @ValidateNested() @Type(() => Address) stops!: Address[];
    }
    stripDesignMetadata(Order, ['shipTo', 'stops']);
    class OrderTools {
      @Tool({ input: Order }) route(input: Order) {
        return [input.shipTo, ...input.stops].map((a) => `${a.constructor.name}:${a.city}`).join(' ');
      }
    }
    @McpModule({ providers: [OrderTools] })
    class Good {}
    const { client } = await connect(Good);
    const tools = (await client.request('tools/list')) as { tools: { inputSchema: object }[] };
    const city = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    expect(tools.tools[0].inputSchema).toMatchObject({ properties: { shipTo: city, stops: { type: 'array', items: city } } });
    const call = (args: object) => client.request('tools/call', { name: 'route', arguments: args });
    expect(await call({ shipTo: { city: 'Oslo' }, stops: [{ city: 'Bergen' }] })).toMatchObject({
      content: [{ text: 'Address:Oslo Address:Bergen' }],
    });
    expect(await call({ shipTo: { city: 1 }, stops: [{ city: 'Bergen' }] })).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('city') }],
    });
    expect(await call({ shipTo: { city: 'Oslo' }, stops: [{}] })).toMatchObject({ isError: true });
  });

  it('constructs providers through @inject(Class) when the constructor has no design:paramtypes', async () => {
    class Clock {
      now() {
        return 'noon';
      }
    }
    class Reporter {
      constructor(private readonly clock: Clock) {}
      @Tool({ input: null }) time() {
        return `it is ${this.clock.now()}`;
      }
    }
    stripDesignMetadata(Reporter);
    // What tsx leaves: @inject(Clock) on the parameter, @injectable() on the class, no design types.
    inject(Clock)(Reporter, undefined, 0);
    injectable()(Reporter);
    injectable()(Clock);
    @McpModule({ providers: [Reporter, Clock] })
    class M {}
    const { client } = await connect(M);
    expect(await client.request('tools/call', { name: 'time', arguments: {} })).toMatchObject({ content: [{ text: 'it is noon' }] });
  });

  it('names the constructor parameters that lack @inject, instead of constructing with undefined', async () => {
    class Clock {}
    class Store {}
    class HalfInjected {
      constructor(
        readonly clock: Clock,
        readonly store: Store,
      ) {}
      @Tool({ input: null }) t() {
        return `${this.store !== undefined}`;
      }
    }
    stripDesignMetadata(HalfInjected);
    inject(Clock)(HalfInjected, undefined, 0);
    injectable()(HalfInjected);
    @McpModule({ providers: [HalfInjected, Clock, Store] })
    class Half {}
    const error = await failure(Half);
    expect(error).toBeInstanceOf(UnresolvableProviderError);
    expect(error?.message).toMatch(/^Cannot construct provider HalfInjected: .*parameter 1 has no @inject\. Put @inject\(Dependency\)/);

    class NoneInjected {
      constructor(readonly clock: Clock) {}
      @Tool({ input: null }) t() {
        return 'x';
      }
    }
    stripDesignMetadata(NoneInjected);
    injectable()(NoneInjected);
    @McpModule({ providers: [NoneInjected, Clock] })
    class None {}
    const noneError = await failure(None);
    expect(noneError).toBeInstanceOf(UnresolvableProviderError);
    expect(noneError?.message).toMatch(/NoneInjected.*tsx, esbuild, vitest.*@inject\(Dependency\) on each constructor parameter/);
  });

  it('gives the README cookbook DTO the same schema with and without decorator metadata', async () => {
    enum Priority {
      Low = 'low',
      High = 'high',
    }
    class ShipTo {
      @IsString() city!: string;
      @IsOptional() @IsString() zip?: string;
    }
    class LineItem {
      @IsString() sku!: string;
      @IsInt() @Min(1) quantity!: number;
    }
    @JsonSchema({ additionalProperties: false })
    class CreateOrderInput {
      @Field('Who the order is for') @IsString() @Length(1, 80) customer!: string;
      @Field({ description: 'How urgent', default: Priority.Low }) @IsOptional() @IsEnum(Priority) priority?: Priority;
      @IsIn(['card', 'invoice']) payment!: 'card' | 'invoice';
      @IsOptional() @IsArray() @ArrayMaxSize(5) @IsString({ each: true }) tags?: string[];
      @ValidateNested() @Type(() => ShipTo) shipTo!: ShipTo;
      @IsArray() @ValidateNested({ each: true }) @Type(() => LineItem) items!: LineItem[];
      @IsOptional() @IsInt() @Min(0) @Max(100) discountPercent?: number;
    }
    class Orders {
      @Tool({ input: CreateOrderInput }) create(input: CreateOrderInput) {
        return `${input.customer}: ${input.items.length} items to ${input.shipTo.city}`;
      }
    }
    @McpModule({ providers: [Orders] })
    class M {}
    const schemaOf = async () => {
      const { client } = await connect(M);
      const { tools } = (await client.request('tools/list')) as { tools: { inputSchema: object }[] };
      return tools[0].inputSchema;
    };
    const withMetadata = await schemaOf();
    stripDesignMetadata(Orders);
    stripDesignMetadata(CreateOrderInput, ['customer', 'priority', 'payment', 'tags', 'shipTo', 'items', 'discountPercent']);
    stripDesignMetadata(ShipTo, ['city', 'zip']);
    stripDesignMetadata(LineItem, ['sku', 'quantity']);
    expect(Reflect.getMetadata('design:type', CreateOrderInput.prototype, 'tags')).toBeUndefined();
    const withoutMetadata = await schemaOf();
    expect(withoutMetadata).toEqual(withMetadata);
    expect(withoutMetadata).toMatchObject({
      properties: {
        priority: { type: 'string', enum: ['low', 'high'], default: 'low', description: 'How urgent' },
        tags: { type: 'array', maxItems: 5, items: { type: 'string' } },
        items: { type: 'array', items: { type: 'object', required: ['sku', 'quantity'] } },
      },
      required: ['customer', 'payment', 'shipTo', 'items'],
      additionalProperties: false,
    });
  });
});
