import { injectable } from 'tsyringe';
import { EmptyInput, isInputRequired, McpApplication, McpContext, McpModule, Tool } from '../../../src';
import { Frame, RawTransport } from '../../helpers/raw-transport';

const form = { type: 'object' as const, properties: { name: { type: 'string' } } };
const log: string[] = [];

@injectable()
class RoundTools {
  @Tool({ description: 'Asks two things at once' })
  async both(_: EmptyInput, ctx: McpContext) {
    const [a, b] = await Promise.all([
      ctx.elicit({ message: 'A?', requestedSchema: form }, { key: 'a' }),
      ctx.elicit({ message: 'B?', requestedSchema: form }, { key: 'b' }),
    ]);
    return `${String(a.content?.name)} and ${String(b.content?.name)}`;
  }

  @Tool({ description: 'Swallows every error around its question, and cleans up in finally' })
  async swallowing(_: EmptyInput, ctx: McpContext) {
    try {
      const answer = await ctx.elicit({ message: 'Name?', requestedSchema: form }, { key: 'name' });
      return `hello ${String(answer.content?.name)}`;
    } catch (error) {
      log.push(`caught input-required=${isInputRequired(error)}`);
      return 'carried on without the answer';
    } finally {
      log.push('finally');
    }
  }

  @Tool({ description: 'Creates an order once, then asks for confirmation' })
  async order(_: EmptyInput, ctx: McpContext) {
    const id = await ctx.once('order', () => {
      log.push('order created');
      return `order-${log.length}`;
    });
    const answer = await ctx.elicit({ message: `Confirm ${id}?`, requestedSchema: form }, { key: 'confirm' });
    return `${id} ${answer.action}`;
  }
}

@McpModule({ providers: [RoundTools], server: { name: 'mrtr', version: '1.0.0' } })
class RoundModule {}

/** Calls a tool as a 2026-07-28 client that declares elicitation. */
function call(client: RawTransport, id: number, name: string, extra: Record<string, unknown> = {}): Promise<Frame> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  };
  return client.request({ id, method: 'tools/call', params: { name, arguments: {}, ...extra, _meta } });
}

/** How handler code meets multi round-trip requests: what stops it, what runs once, what goes out together. */
describe('multi round-trip requests as a handler sees them', () => {
  let app: McpApplication;
  let client: RawTransport;
  beforeEach(async () => {
    log.length = 0;
    app = await McpApplication.create(RoundModule, { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
    client = new RawTransport();
    app.connect(client, { local: true });
  });
  afterEach(() => app.close());

  it('puts requests made together (Promise.all) into one round', async () => {
    const first = await call(client, 1, 'both');
    expect(Object.keys(first.result!.inputRequests!)).toEqual(['a', 'b']);
    const done = await call(client, 2, 'both', {
      inputResponses: { a: { action: 'accept', content: { name: 'Ann' } }, b: { action: 'accept', content: { name: 'Bob' } } },
    });
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ text: 'Ann and Bob' }] });
  });

  it('stops the handler with InputRequiredError: finally blocks run, and a swallowed one still ends in input_required', async () => {
    const first = await call(client, 1, 'swallowing');
    expect(first.result).toMatchObject({ resultType: 'input_required', inputRequests: { name: { method: 'elicitation/create' } } });
    expect(log).toEqual(['caught input-required=true', 'finally']);
    const done = await call(client, 2, 'swallowing', {
      inputResponses: { name: { action: 'accept', content: { name: 'Ann' } } },
      requestState: first.result!.requestState,
    });
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ text: 'hello Ann' }] });
  });

  it('runs ctx.once work one time across rounds, and keeps its value in requestState', async () => {
    const first = await call(client, 1, 'order');
    const done = await call(client, 2, 'order', {
      inputResponses: { confirm: { action: 'accept', content: {} } },
      requestState: first.result!.requestState,
    });
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ text: 'order-1 accept' }] });
    expect(log).toEqual(['order created']);
  });
});
