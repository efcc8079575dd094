import { createServer, type Server } from 'node:net';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsString, Min, ValidateNested } from 'class-validator';
import { injectable } from 'tsyringe';
import {
  AddressInUseError,
  InvalidHandlerSignatureError,
  McpApplication,
  McpContext,
  McpModule,
  MissingInputMetadataError,
  MissingNestedTypeError,
  Prompt,
  Resource,
  Tool,
  UnresolvableProviderError,
} from '../../src';
import { connect } from '../helpers/in-memory';
import { httpServer } from '../../src/http';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };

class Query {
  @IsString() q!: string;
}

describe('definition mistakes a new user makes', () => {
  it('refuses a handler that takes the context before its input', async () => {
    class ContextFirst {
      @Tool() search(_ctx: McpContext, input: Query) {
        return input.q;
      }
    }
    @McpModule({ providers: [ContextFirst] })
    class M {}
    const error = await McpApplication.create(M, { logger: quiet }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidHandlerSignatureError);
    expect((error as Error).message).toMatch(/ContextFirst\.search/);
    expect((error as Error).message).toMatch(/input comes first/);
    expect((error as Error).message).toMatch(/search\(input: Query, ctx: McpContext\)/);
  });

  it('says that an interface vanishes at runtime when one is used as input type', async () => {
    interface SearchInput {
      q: string;
    }
    class InterfaceInput {
      @Prompt() ask(input: SearchInput) {
        return input.q;
      }
    }
    @McpModule({ providers: [InterfaceInput] })
    class M {}
    const error = await McpApplication.create(M, { logger: quiet }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingInputMetadataError);
    expect((error as Error).message).toMatch(/InterfaceInput\.ask/);
    expect((error as Error).message).toMatch(/interface/);
    expect((error as Error).message).toMatch(/runtime/);
    expect((error as Error).message).toMatch(/class/);
  });

  it('names the class and both fixes when tsyringe cannot construct a provider', async () => {
    class Repository {
      constructor(readonly url: string) {}
    }
    @injectable()
    class UsesRepository {
      constructor(readonly repository: Repository) {}
      @Tool() count() {
        return '0';
      }
    }
    @McpModule({ providers: [UsesRepository] })
    class M {}
    const error = await McpApplication.create(M, { logger: quiet }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnresolvableProviderError);
    const message = (error as Error).message;
    expect(message).toMatch(/Repository/);
    expect(message).toMatch(/UsesRepository/);
    expect(message).toMatch(/@injectable\(\)/);
    expect(message).toMatch(/providers/);
  });

  it('warns at bootstrap about a decorated class that no module lists, whose tools are not served', async () => {
    class ForgottenTools {
      @Tool() forgotten() {
        return 'never listed';
      }
    }
    class ListedTools {
      @Tool() listed() {
        return 'listed';
      }
    }
    @McpModule({ providers: [ListedTools] })
    class M {}
    const { app, client, logged } = await connect(M);
    try {
      const name = ForgottenTools.name;
      expect(logged.filter((w) => w.includes(name))).toEqual([
        `${name} has @Tool/@Resource/@Prompt/@Complete methods but no @McpModule lists it in its providers, so none of them is served. ` +
          `Add ${name} to the providers of a module (or pass it to app.addProviders() if it is meant to come later).`,
      ]);
      expect(logged.some((w) => w.includes('ListedTools'))).toBe(false);
      const { tools } = (await client.request('tools/list')) as { tools: { name: string }[] };
      expect(tools.map((t) => t.name)).toEqual(['listed']);
    } finally {
      await app.close();
    }
  });
});

class Address {
  @IsString() city!: string;
  @IsInt() @Min(1) zip!: number;
}
class Customer {
  @IsString() name!: string;
  @ValidateNested() address!: Address;
}

describe('nested input classes', () => {
  it('validates and instantiates a @ValidateNested property without @Type, from its design type', async () => {
    const received: unknown[] = [];
    class CustomerTools {
      @Tool() register(input: Customer) {
        received.push(input.address);
        return input.address instanceof Address ? `ok ${input.address.city}` : 'not an Address';
      }
    }
    @McpModule({ providers: [CustomerTools] })
    class M {}
    const { app, client } = await connect(M);
    const list = (await client.request('tools/list')) as { tools: { inputSchema: { properties: { address: { required?: string[] } } } }[] };
    expect(list.tools[0].inputSchema.properties.address.required).toEqual(['city', 'zip']);

    const bad = (await client.request('tools/call', {
      name: 'register',
      arguments: { name: 'Ann', address: { city: 'Lyon', zip: 0 } },
    })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/address\.zip/);

    const good = (await client.request('tools/call', {
      name: 'register',
      arguments: { name: 'Ann', address: { city: 'Lyon', zip: 69001 } },
    })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(good.isError).toBeFalsy();
    expect(good.content[0].text).toBe('ok Lyon');
    expect(received[0]).toBeInstanceOf(Address);
    await app.close();
  });

  it('refuses a @ValidateNested array without @Type, asking for @Type(() => X)', async () => {
    class Order {
      @IsArray() @ValidateNested({ each: true }) lines!: Address[];
    }
    class OrderTools {
      @Tool() order(input: Order) {
        return String(input.lines.length);
      }
    }
    @McpModule({ providers: [OrderTools] })
    class M {}
    const error = await McpApplication.create(M, { logger: quiet }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingNestedTypeError);
    expect((error as Error).message).toMatch(/Order\.lines/);
    expect((error as Error).message).toMatch(/@Type\(\(\) => /);
  });

  it('keeps honouring an explicit @Type on arrays', async () => {
    class Order {
      @IsArray() @ValidateNested({ each: true }) @Type(() => Address) lines!: Address[];
    }
    class OrderTools {
      @Tool() order(input: Order) {
        return input.lines.every((l) => l instanceof Address) ? 'instances' : 'plain';
      }
    }
    @McpModule({ providers: [OrderTools] })
    class M {}
    const { app, client } = await connect(M);
    const bad = (await client.request('tools/call', { name: 'order', arguments: { lines: [{ city: 'Lyon' }] } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/lines\.0\.zip/);
    const good = (await client.request('tools/call', { name: 'order', arguments: { lines: [{ city: 'Lyon', zip: 1 }] } })) as {
      content: { text: string }[];
    };
    expect(good.content[0].text).toBe('instances');
    await app.close();
  });
});

describe('listen', () => {
  let blocker: Server;
  let port: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise((resolve) => blocker.close(resolve)));

  it('rejects with an error naming host:port and how to change it when the port is taken', async () => {
    class Tools {
      @Resource({ uri: 'x://a' }) a() {
        return 'a';
      }
    }
    @McpModule({ providers: [Tools] })
    class M {}
    const app = await McpApplication.create(M, { logger: quiet });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const error = await app.listen(httpServer({ port, host: '127.0.0.1' })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AddressInUseError);
      expect((error as Error).message).toContain(`127.0.0.1:${port}`);
      expect((error as Error).message).toMatch(/port/);
      expect((error as Error).message).toMatch(/PORT/);
      await app.close();
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
