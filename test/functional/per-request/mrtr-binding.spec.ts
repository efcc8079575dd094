import { McpApplication, type McpContext } from '../../../src';
import { ErasModule } from '../../fixtures/eras-tools';
import { postPerRequest } from '../../helpers/per-request-http';
import { httpServer } from '../../../src/http';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
const form = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } } };
const YES = { confirm: { action: 'accept', content: { ok: true } } };

/** Asks once, then answers with the arguments it was given (as it saw them on this run). */
async function confirmThenEcho(args: Record<string, unknown>, ctx: McpContext): Promise<string> {
  await ctx.elicit({ message: 'Go on?', requestedSchema: form }, { key: 'confirm' });
  return JSON.stringify(args);
}

/**
 * A multi round-trip request is bound to the arguments it arrived with: a handler that changes the
 * object it was given before asking does not change what the retry must repeat, and a retry with
 * other arguments (flat or nested) is refused.
 */
describe('2026-07-28 requestState: bound to the arguments as they arrived', () => {
  let app: McpApplication;
  let url: string;

  beforeAll(async () => {
    app = await McpApplication.create(ErasModule, { logger: quiet });
    app.addTool({
      name: 'changeFlat',
      description: 'Changes a scalar argument, then asks',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: (args, ctx) => {
        args.text = `${String(args.text)}, changed`;
        args.added = 1;
        return confirmThenEcho(args, ctx);
      },
    });
    app.addTool({
      name: 'changeNested',
      description: 'Changes a nested argument, then asks',
      inputSchema: { type: 'object', properties: { deep: { type: 'object' } } },
      handler: (args, ctx) => {
        (args.deep as Record<string, unknown>).value = 'changed';
        return confirmThenEcho(args, ctx);
      },
    });
    app.addTool({
      name: 'keepAll',
      description: 'Asks, changing nothing',
      inputSchema: { type: 'object' },
      handler: (args, ctx) => confirmThenEcho(args, ctx),
    });
    const http = await app.listen(httpServer({ host: '127.0.0.1', port: 0 }));
    url = http.url;
  });
  afterAll(() => app.close());

  async function firstRound(name: string, args: Record<string, unknown>): Promise<string> {
    const reply = await postPerRequest(url, 'tools/call', { name, arguments: args });
    expect(reply.body.result).toMatchObject({ resultType: 'input_required' });
    return reply.body.result!.requestState as string;
  }

  async function retry(name: string, args: Record<string, unknown>, requestState: string) {
    return postPerRequest(url, 'tools/call', { name, arguments: args, requestState, inputResponses: YES });
  }

  it.each([
    ['scalar', 'changeFlat', { text: 'hi', n: 2, yes: true, none: null }],
    ['nested', 'changeNested', { deep: { value: 'original', list: [1, 2] } }],
  ])('completes when the handler changed a %s argument before asking', async (_kind, name, args) => {
    const state = await firstRound(name, args);
    const reply = await retry(name, args, state);
    expect(reply.body.error).toBeUndefined();
    expect(reply.body.result).toMatchObject({ resultType: 'complete' });
  });

  it.each([
    ['a scalar', 'changeFlat', { text: 'hi' }, { text: 'ho' }],
    ['a number for its string', 'keepAll', { n: 1 }, { n: '1' }],
    ['a nested value', 'changeNested', { deep: { value: 'a' } }, { deep: { value: 'b' } }],
    ['an extra member', 'keepAll', { a: 1 }, { a: 1, b: 2 }],
  ])('refuses a retry that changed %s', async (_what, name, first, other) => {
    const state = await firstRound(name, first);
    const reply = await retry(name, other, state);
    expect(reply.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('another request') });
  });

  it('accepts the same arguments in another key order', async () => {
    const state = await firstRound('keepAll', { a: 1, b: 'x' });
    const reply = await retry('keepAll', { b: 'x', a: 1 }, state);
    expect(reply.body.result).toMatchObject({ resultType: 'complete' });
  });
});
