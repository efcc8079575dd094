import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { injectable } from 'tsyringe';
import { EmptyInput, JsonSchema, McpModule, Tool } from '../../src';
import { connect } from '../helpers/in-memory';

class Address {
  @IsString() city!: string;
}
class Order {
  @IsString() item!: string;
  @IsInt() quantity!: number;
  @IsOptional() @IsString() note?: string;
  @IsOptional() @ValidateNested() @Type(() => Address) shipTo?: Address;
}
/** No nested members, no class-transformer metadata. */
class Plain {
  @IsString() name!: string;
}
class Booking {
  @IsString() guest!: string;
  @IsInt() nights!: number;
}
@JsonSchema({ additionalProperties: true })
class Lenient {
  @IsString() name!: string;
}

@injectable()
class Shop {
  received: unknown[] = [];

  @Tool({ description: 'Orders an item' })
  order(input: Order): string {
    this.received.push(input);
    return `ordered ${input.quantity} ${input.item}`;
  }

  @Tool({ description: 'Greets' })
  greet(input: Plain): string {
    this.received.push(input);
    return `hi ${input.name}`;
  }

  @Tool({ description: 'Books a room' })
  book(input: Booking): string {
    this.received.push(input);
    return `booked ${input.nights} nights for ${input.guest}`;
  }

  @Tool({ description: 'Greets, and takes whatever else comes' })
  lenient(input: Lenient): string {
    this.received.push(input);
    return `hi ${input.name}`;
  }

  @Tool({ description: 'Takes nothing' })
  ping(_: EmptyInput): string {
    return 'pong';
  }
}

@McpModule({ providers: [Shop], server: { name: 'shop', version: '1.0.0' } })
class ShopModule {}

type Result = { isError?: boolean; content: { text: string }[] };

async function shop() {
  const env = await connect(ShopModule);
  const call = async (name: string, args: Record<string, unknown>) =>
    (await env.client.request('tools/call', { name, arguments: args })) as Result;
  return { ...env, call };
}

describe('tool arguments the model got wrong are tool execution errors (isError) that say what to fix', () => {
  it('says a missing argument is required, not that it has the wrong type', async () => {
    const { app, call } = await shop();
    expect(await call('order', { quantity: 2 })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Invalid arguments for tool "order":\n- item: is required (required)' }],
    });
    expect((await call('order', { item: 'pen', quantity: 2, shipTo: {} })).content[0].text).toBe(
      'Invalid arguments for tool "order":\n- shipTo.city: is required (required)',
    );
    // A present value of the wrong type still says what is wrong with it.
    expect((await call('order', { item: 7, quantity: 2 })).content[0].text).toBe(
      'Invalid arguments for tool "order":\n- item: item must be a string (isString)',
    );
    await app.close();
  });

  it.each([
    ['order', 'an input class read by class-transformer'],
    ['greet', 'an input class without nested members'],
  ])('refuses unknown argument keys by name (%s: %s), listing the parameters', async (tool) => {
    const { app, call, app: application } = await shop();
    const args = tool === 'order' ? { item: 'pen', quantity: 2, colour: 'red', size: 'L' } : { name: 'Ada', nmae: 'Ada', size: 'L' };
    const result = await call(tool, args);
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe(
      tool === 'order'
        ? 'Invalid arguments for tool "order":\n' +
            '- colour: is not a parameter of this tool; its parameters are item, quantity, note, shipTo (unknownArgument)\n' +
            '- size: is not a parameter of this tool; its parameters are item, quantity, note, shipTo (unknownArgument)'
        : 'Invalid arguments for tool "greet":\n' +
            '- nmae: is not a parameter of this tool; its parameters are name (unknownArgument)\n' +
            '- size: is not a parameter of this tool; its parameters are name (unknownArgument)',
    );
    expect(application.get(Shop).received).toEqual([]);
    await app.close();
  });

  it.each([
    [
      'book',
      { guset: 'Ada', nights: 'two' },
      [
        'guset: is not a parameter of this tool; its parameters are guest, nights (unknownArgument)',
        'guest: is required (required)',
        'nights: nights must be an integer number (isInt)',
      ],
    ],
    [
      'order',
      { colour: 'red', quantity: 'two' },
      [
        'colour: is not a parameter of this tool; its parameters are item, quantity, note, shipTo (unknownArgument)',
        'item: is required (required)',
        'quantity: quantity must be an integer number (isInt)',
      ],
    ],
  ])('reports every issue of a call at once: unknown, missing and mistyped arguments (%s)', async (tool, args, issues) => {
    const { app, call } = await shop();
    expect(await call(tool, args)).toEqual({
      isError: true,
      content: [{ type: 'text', text: `Invalid arguments for tool "${tool}":\n${issues.map((i) => `- ${i}`).join('\n')}` }],
    });
    expect(app.get(Shop).received).toEqual([]);
    await app.close();
  });

  it('refuses unknown keys of nested objects and of a tool that takes nothing', async () => {
    const { app, call } = await shop();
    expect((await call('order', { item: 'pen', quantity: 1, shipTo: { city: 'Oslo', zip: '0150' } })).content[0].text).toBe(
      'Invalid arguments for tool "order":\n- shipTo.zip: is not a known property (unknownProperty)',
    );
    expect((await call('ping', { verbose: true })).content[0].text).toBe(
      'Invalid arguments for tool "ping":\n- verbose: is not a parameter of this tool; it takes none (unknownArgument)',
    );
    expect(await call('ping', {})).toEqual({ content: [{ type: 'text', text: 'pong' }] });
    await app.close();
  });

  it('strips unknown keys of a class marked @JsonSchema({ additionalProperties: true })', async () => {
    const { app, call } = await shop();
    expect(await call('lenient', { name: 'Ada', mood: 'fine' })).toEqual({ content: [{ type: 'text', text: 'hi Ada' }] });
    expect(app.get(Shop).received).toEqual([Object.assign(new Lenient(), { name: 'Ada' })]);
    await app.close();
  });

  it('app.addTool: its JSON Schema decides; a missing argument is required, a key its schema shuts out is named', async () => {
    const { app, call } = await shop();
    const seen: unknown[] = [];
    const properties = { city: { type: 'string' }, days: { type: 'integer' } };
    app.addTool({
      name: 'forecast',
      inputSchema: { type: 'object', properties, required: ['city'], additionalProperties: false },
      handler: (args) => (seen.push(args), 'sunny'),
    });
    app.addTool({
      name: 'open',
      inputSchema: { type: 'object', properties, required: ['city'] },
      handler: (args) => (seen.push(args), 'ok'),
    });
    expect(await call('forecast', { days: 2 })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Invalid arguments for tool "forecast":\n- city: is required (required)' }],
    });
    expect((await call('forecast', { city: 'Oslo', dayz: 2 })).content[0].text).toBe(
      'Invalid arguments for tool "forecast":\n- dayz: is not a parameter of this tool; its parameters are city, days (additionalProperties)',
    );
    // Without additionalProperties: false, JSON Schema allows other keys: they reach the handler, nothing is dropped.
    expect(await call('open', { city: 'Oslo', dayz: 2 })).toEqual({ content: [{ type: 'text', text: 'ok' }] });
    expect(seen).toEqual([{ city: 'Oslo', dayz: 2 }]);
    await app.close();
  });
});
