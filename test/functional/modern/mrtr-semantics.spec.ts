import { injectable } from 'tsyringe';
import { EmptyInput, isInputRequired, McpApplication, McpContext, McpModule, Tool } from '../../../src';
import type { JsonRpcMessage } from '../../../src/mcp/json-rpc';
import type { InboundSink, MessageTransport } from '../../../src/transports/message-transport';
import { waitFor } from '../../helpers/wait-for';

const form = { type: 'object' as const, properties: { name: { type: 'string' } } };
const log: string[] = [];

@injectable()
class RoundTools {
  @Tool({ description: 'Asks two things at once' })
  async both(_: EmptyInput, ctx: McpContext) {
    const [a, b] = await Promise.all([ctx.elicit({ message: 'A?', requestedSchema: form }, { key: 'a' }), ctx.elicit({ message: 'B?', requestedSchema: form }, { key: 'b' })]);
    return `${a.content?.name} and ${b.content?.name}`;
  }

  @Tool({ description: 'Swallows every error around its question, and cleans up in finally' })
  async swallowing(_: EmptyInput, ctx: McpContext) {
    try {
      const answer = await ctx.elicit({ message: 'Name?', requestedSchema: form }, { key: 'name' });
      return `hello ${answer.content?.name}`;
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

type Frame = { id?: unknown; result?: Record<string, unknown> & { inputRequests?: Record<string, unknown>; requestState?: string; content?: { text: string }[] }; error?: { code: number } };

class RawTransport implements MessageTransport {
  readonly sent: Frame[] = [];
  private inbound?: InboundSink;
  start(inbound: InboundSink): void {
    this.inbound = inbound;
  }
  async send(message: JsonRpcMessage): Promise<void> {
    this.sent.push(message as Frame);
  }
  async close(): Promise<void> {}
  async call(id: number, name: string, extra: Record<string, unknown> = {}): Promise<Frame> {
    const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    this.inbound!({ ok: true, message: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...extra, _meta } } as JsonRpcMessage });
    await waitFor(() => this.sent.some((f) => f.id === id), { what: `the answer to ${id}` });
    return this.sent.find((f) => f.id === id)!;
  }
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
    const first = await client.call(1, 'both');
    expect(Object.keys(first.result!.inputRequests!)).toEqual(['a', 'b']);
    const done = await client.call(2, 'both', { inputResponses: { a: { action: 'accept', content: { name: 'Ann' } }, b: { action: 'accept', content: { name: 'Bob' } } } });
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ text: 'Ann and Bob' }] });
  });

  it('stops the handler with InputRequiredError: finally blocks run, and a swallowed one still ends in input_required', async () => {
    const first = await client.call(1, 'swallowing');
    expect(first.result).toMatchObject({ resultType: 'input_required', inputRequests: { name: { method: 'elicitation/create' } } });
    expect(log).toEqual(['caught input-required=true', 'finally']);
    const done = await client.call(2, 'swallowing', { inputResponses: { name: { action: 'accept', content: { name: 'Ann' } } }, requestState: first.result!.requestState });
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ text: 'hello Ann' }] });
  });

  it('runs ctx.once work one time across rounds, and keeps its value in requestState', async () => {
    const first = await client.call(1, 'order');
    const done = await client.call(2, 'order', { inputResponses: { confirm: { action: 'accept', content: {} } }, requestState: first.result!.requestState });
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ text: 'order-1 accept' }] });
    expect(log).toEqual(['order created']);
  });
});
