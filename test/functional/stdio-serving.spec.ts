import { PassThrough, Writable } from 'node:stream';
import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import {
  EmptyInput,
  type InboundSink,
  type LogFields,
  McpApplication,
  type McpContext,
  McpModule,
  type MessageTransport,
  Tool,
} from '../../src';
import type { JsonRpcMessage } from '../../src/mcp/json-rpc';
import { waitFor } from '../helpers/wait-for';
import { stdio } from '../../src/stdio';

class TextInput {
  @IsString() text!: string;
}

@injectable()
class ServedTools {
  @Tool({ description: 'Answers at once' })
  echo(input: TextInput) {
    return input.text;
  }

  @Tool({ description: 'Answers after an await' })
  async later(input: TextInput) {
    await new Promise((r) => setImmediate(r));
    return `later ${input.text}`;
  }

  @Tool({ description: 'Reports progress, then answers' })
  async steps(_: EmptyInput, ctx: McpContext) {
    for (let i = 1; i <= 2; i++) await ctx.progress(i, 2);
    return 'stepped';
  }

  @Tool({ description: 'Throws at once' })
  broken(_: EmptyInput): string {
    throw new Error('wires crossed');
  }

  @Tool({ description: 'Throws after an await' })
  async brokenLater(_: EmptyInput): Promise<string> {
    await new Promise((r) => setImmediate(r));
    throw new Error('wires crossed later');
  }
}

@McpModule({ providers: [ServedTools], server: { name: 'stdio-serving', version: '1.0.0' } })
class ServedModule {}

/** The application on in-process stdio streams, and the messages it wrote, parsed. */
async function serve(entries: { message: string; fields?: LogFields }[]) {
  const app = await McpApplication.create(ServedModule, {
    logger: { error: (message, _error, fields) => void entries.push({ message, fields }), warn: () => undefined, info: () => undefined },
  });
  const input = new PassThrough();
  const output = new PassThrough();
  const messages: Record<string, unknown>[] = [];
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      messages.push(JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>);
      buffered = buffered.slice(nl + 1);
    }
  });
  await app.listen(stdio({ input, output, redirectConsole: false }));
  const send = (...batch: object[]) => input.write(batch.map((m) => `${JSON.stringify(m)}\n`).join(''));
  const answered = (ids: number[]) => waitFor(() => ids.every((id) => messages.some((m) => m.id === id)));
  send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await answered([0]);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { app, send, messages, answered };
}

const call = (id: number, name: string, args: Record<string, unknown> = {}, meta?: object) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

describe('stdio: tools/call served in one chunk, synchronous and asynchronous tools mixed', () => {
  it('answers each request once with its own result, progress before its response, each failure with its log fields', async () => {
    const entries: { message: string; fields?: LogFields }[] = [];
    const { app, send, messages, answered } = await serve(entries);
    try {
      send(
        call(1, 'echo', { text: 'a' }),
        call(2, 'later', { text: 'b' }),
        call(3, 'echo', { text: 3 }),
        call(4, 'broken'),
        call(5, 'steps', {}, { progressToken: 'p5' }),
        call(6, 'brokenLater'),
        call(7, 'echo', { text: 'c' }),
      );
      await answered([1, 2, 3, 4, 5, 6, 7]);
      const answers = new Map(messages.filter((m) => 'id' in m).map((m) => [m.id, m]));
      expect(messages.filter((m) => 'id' in m && m.id !== 0)).toHaveLength(7);
      expect(answers.get(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'a' }] } });
      expect(answers.get(2)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'later b' }] } });
      expect(answers.get(3)).toMatchObject({
        result: { isError: true, content: [{ text: expect.stringContaining('text must be a string') }] },
      });
      expect(answers.get(4)).toMatchObject({
        result: { isError: true, content: [{ text: 'Tool "broken" failed with an internal error' }] },
      });
      expect(answers.get(6)).toMatchObject({ result: { isError: true } });
      expect(answers.get(7)).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'c' }] } });
      const progress = messages
        .filter((m) => m.method === 'notifications/progress')
        .map((m) => (m.params as { progress: number }).progress);
      expect(progress).toEqual([1, 2]);
      expect(messages.findIndex((m) => m.method === 'notifications/progress')).toBeLessThan(messages.findIndex((m) => m.id === 5));
      // The server log's request fields, from a synchronous throw and from one after an await.
      expect(entries.find((e) => e.message.includes('broken threw'))?.fields).toMatchObject({ requestId: 4, method: 'tools/call' });
      expect(entries.find((e) => e.message.includes('brokenLater threw'))?.fields).toMatchObject({ requestId: 6, method: 'tools/call' });
    } finally {
      await app.close();
    }
  });

  it.each(['2025-11-25', '2026-07-28'])(
    'answers a synchronous and an asynchronous tool over a message transport of your own (%s)',
    async (era) => {
      const app = await McpApplication.create(ServedModule, {
        logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
      });
      const sent: JsonRpcMessage[] = [];
      let inbound!: InboundSink;
      const transport: MessageTransport = {
        start: (sink) => void (inbound = sink),
        send: async (message) => void sent.push(message),
        close: async () => undefined,
      };
      app.connect(transport);
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
      const deliver = (message: object) => inbound({ ok: true, message: message as JsonRpcMessage });
      try {
        if (era === '2025-11-25') {
          deliver({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: { protocolVersion: era, capabilities: {}, clientInfo: { name: 't', version: '1' } },
          });
          deliver({ jsonrpc: '2.0', method: 'notifications/initialized' });
          deliver(call(1, 'echo', { text: 'now' }));
        } else {
          deliver({ jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: meta } });
          deliver(call(1, 'echo', { text: 'now' }, meta));
        }
        deliver(call(2, 'later', { text: 'x' }, era === '2026-07-28' ? meta : undefined));
        await waitFor(() => sent.some((m) => 'id' in m && m.id === 2));
        expect(sent.find((m) => 'id' in m && m.id === 1)).toMatchObject({ result: { content: [{ type: 'text', text: 'now' }] } });
        expect(sent.find((m) => 'id' in m && m.id === 2)).toMatchObject({ result: { content: [{ type: 'text', text: 'later x' }] } });
      } finally {
        await app.close();
      }
    },
  );
});

describe('stdio: what leaves in one write', () => {
  /** The application on in-process streams whose output records each write it was handed. */
  async function counted() {
    const app = await McpApplication.create(ServedModule, {
      logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
    });
    const input = new PassThrough();
    const writes: string[] = [];
    const output = new Writable({
      write(chunk: Buffer, _encoding, done) {
        writes.push(chunk.toString());
        done();
      },
    });
    await app.listen(stdio({ input, output, redirectConsole: false }));
    const send = (...batch: object[]) => input.write(batch.map((m) => `${JSON.stringify(m)}\n`).join(''));
    const lines = () =>
      writes.flatMap((w) =>
        w
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
      );
    send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await waitFor(() => lines().some((m) => m.id === 0));
    writes.length = 0;
    return { app, send, writes, lines };
  }

  it('answers the requests of one chunk in one write, in order', async () => {
    const { app, send, writes, lines } = await counted();
    try {
      send(...Array.from({ length: 20 }, (_, i) => call(i + 1, 'echo', { text: `t${i + 1}` })));
      await waitFor(() => lines().length === 20);
      expect(writes).toHaveLength(1);
      expect(lines().map((m) => m.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    } finally {
      await app.close();
    }
  });

  it('hands an awaited notification to the output before the handler goes on: progress, then the answer, in writes of their own', async () => {
    const { app, send, writes, lines } = await counted();
    try {
      send(call(1, 'steps', {}, { progressToken: 'p' }));
      await waitFor(() => lines().some((m) => m.id === 1));
      const kinds = writes.map((w) =>
        w
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { id?: number }).id ?? 'progress'),
      );
      expect(kinds).toEqual([['progress'], ['progress'], [1]]);
    } finally {
      await app.close();
    }
  });
});
