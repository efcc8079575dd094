import { PassThrough } from 'node:stream';
import { inject, injectable } from 'tsyringe';
import {
  EmptyInput,
  InvalidDefinitionError,
  MCP_LOGGER,
  McpApplication,
  type McpContext,
  McpModule,
  type LogLevel,
  type ServerLogger,
  Tool,
} from '../../src';
import { McpTestClient } from '../../src/testing';
import { stdio } from '../../src/stdio';

@injectable()
class ReportingTools {
  constructor(@inject(MCP_LOGGER) private readonly logger: ServerLogger) {}

  @Tool({ description: 'Logs at several levels: to the server log and to the client' })
  async report(_: EmptyInput, ctx: McpContext) {
    this.logger.debug?.('server debug');
    this.logger.info('server info');
    this.logger.warn('server warn');
    await ctx.log.info('client info');
    await ctx.log.error('client error');
    return 'reported';
  }
}

@McpModule({ providers: [ReportingTools], server: { name: 'one-of-two', version: '1.0.0' } })
class ReportingModule {}

/** One application of the module with its own log level, its server log, and an in-memory client. */
async function application(logLevel: LogLevel) {
  const logged: string[] = [];
  const logger: ServerLogger = {
    debug: (m) => logged.push(`debug: ${m}`),
    info: (m) => logged.push(`info: ${m}`),
    warn: (m) => logged.push(`warn: ${m}`),
    error: (m) => logged.push(`error: ${m}`),
  };
  const app = await McpApplication.create(ReportingModule, { logger, logLevel });
  const client = await McpTestClient.connect(app.connectInMemory());
  return { app, client, logged };
}

const toolNames = async (client: McpTestClient) =>
  ((await client.request('tools/list')) as { tools: { name: string }[] }).tools.map((t) => t.name).sort();

const clientLog = (client: McpTestClient) =>
  client.notifications.filter((n) => n.method === 'notifications/message').map((n) => (n.params as { data: unknown }).data);

const POINT = { $id: 'https://example.com/point', type: 'object', properties: { x: { type: 'number' } } } as const;
const NESTED_POINT = {
  type: 'object',
  properties: { at: { $ref: 'https://example.com/nested-point' } },
  $defs: { point: { $id: 'https://example.com/nested-point', type: 'object' } },
} as const;

describe('two applications in one process', () => {
  it('keep their own server log level, client log level and runtime tools', async () => {
    const a = await application('debug');
    const b = await application('warn');
    await a.client.request('logging/setLevel', { level: 'error' });

    await a.client.request('tools/call', { name: 'report', arguments: {} });
    await b.client.request('tools/call', { name: 'report', arguments: {} });
    expect(a.logged).toEqual(['debug: server debug', 'info: server info', 'warn: server warn']);
    expect(b.logged).toEqual(['warn: server warn']);
    expect(clientLog(a.client)).toEqual(['client error']);
    expect(clientLog(b.client)).toEqual(['client info', 'client error']);

    a.app.addTool({ name: 'only_a', inputSchema: POINT, handler: () => 'a' });
    a.app.addTool({ name: 'nested_a', inputSchema: NESTED_POINT, handler: () => 'a' });
    // The same schema (and $id) in the other application is its own: not "already registered".
    b.app.addTool({ name: 'only_b', inputSchema: POINT, handler: () => 'b' });
    // ...and a reference to it resolves in neither: a schema registered by one application is never another's.
    const refersToPoint = { type: 'object', properties: { p: { $ref: 'https://example.com/point' } } } as const;
    expect(() => b.app.addTool({ name: 'refers', inputSchema: refersToPoint, handler: () => 'b' })).toThrow(InvalidDefinitionError);
    const refersToNested = { type: 'object', properties: { p: { $ref: 'https://example.com/nested-point' } } } as const;
    expect(() => b.app.addTool({ name: 'refers', inputSchema: refersToNested, handler: () => 'b' })).toThrow(InvalidDefinitionError);
    expect(b.app.removeTool('report')).toBe(true);

    expect(await toolNames(a.client)).toEqual(['nested_a', 'only_a', 'report']);
    expect(await toolNames(b.client)).toEqual(['only_b']);
    await Promise.all([a.client.close(), b.client.close()]);
    await Promise.all([a.app.close(), b.app.close()]);
  });

  describe("keep the console where their own stdio needs it, never where the other's left it", () => {
    let onStderr: string[];
    let stderr: jest.SpyInstance;
    let log: jest.SpyInstance;
    beforeEach(() => {
      onStderr = [];
      stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        onStderr.push(String(chunk));
        return true;
      });
      // The console as the user left it: what it writes once no application holds it on stderr.
      log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    });
    afterEach(() => {
      stderr.mockRestore();
      log.mockRestore();
    });

    it('one serving stdio on the process stdout holds it on stderr; one on streams of its own does not', async () => {
      const onStdout = await McpApplication.create(ReportingModule);
      const ownStreams = await McpApplication.create(ReportingModule);
      // Nothing is sent on this stdio, so nothing reaches the real stdout.
      await onStdout.listen(stdio({ input: new PassThrough() }));
      await ownStreams.listen(stdio({ input: new PassThrough(), output: new PassThrough() }));

      console.log('while both serve');
      await ownStreams.close();
      console.log('after the one on its own streams closed');
      await onStdout.close();
      console.log('after the one on stdout closed');

      expect(onStderr.join('')).toBe('while both serve\nafter the one on its own streams closed\n');
      expect(log.mock.calls).toEqual([['after the one on stdout closed']]);
    });

    it('the one on streams of its own never takes the console', async () => {
      const onStdout = await McpApplication.create(ReportingModule);
      const ownStreams = await McpApplication.create(ReportingModule);
      await onStdout.listen(stdio({ input: new PassThrough() }));
      await ownStreams.listen(stdio({ input: new PassThrough(), output: new PassThrough() }));

      await onStdout.close();
      console.log('the other one still serves');
      await ownStreams.close();

      expect(onStderr).toEqual([]);
      expect(log.mock.calls).toEqual([['the other one still serves']]);
    });
  });
});
