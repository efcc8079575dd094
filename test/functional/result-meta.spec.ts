import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpModule, Tool } from '../../src';
import { ACCEPT_BOTH } from '../helpers/http-app';
import { perRequestBody, perRequestHeaders } from '../helpers/per-request-http';
import { httpTransport } from '../../src/http';
import { stdio } from '../../src/stdio';

const OWN_META = { 'com.acme/trace': { step: 1 } };

@injectable()
class MetaTools {
  /** Every result this tool returned, as its author holds it. */
  readonly returned: Record<string, unknown>[] = [];

  @Tool({ description: 'Returns a full result with its own _meta' })
  annotated(_: EmptyInput) {
    const result = { content: [{ type: 'text', text: 'annotated' }], _meta: structuredClone(OWN_META) };
    this.returned.push(result);
    return result;
  }
}

@McpModule({ providers: [MetaTools], server: { name: 'result-meta', version: '1.0.0' } })
class MetaModule {}

const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'annotated', arguments: {} } });

/* A handler's result is serialized as it is: the client sees its _meta, and the handler's object keeps it. */
describe("a handler's result with its own _meta", () => {
  let app: McpApplication;
  beforeEach(async () => {
    app = await McpApplication.create(MetaModule, { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
  });
  afterEach(() => app.close());

  const kept = () => {
    const returned = app.get(MetaTools).returned;
    expect(returned.length).toBeGreaterThan(0);
    for (const result of returned) expect(result).toEqual({ content: [{ type: 'text', text: 'annotated' }], _meta: OWN_META });
  };

  it('over stdio', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    await app.listen(stdio({ input, output, redirectConsole: false }));
    const answers = new Map<number, (message: Record<string, unknown>) => void>();
    createInterface({ input: output }).on('line', (line) => {
      const message = JSON.parse(line) as Record<string, unknown>;
      answers.get(message.id as number)?.(message);
    });
    const send = (message: Record<string, unknown>) =>
      new Promise<Record<string, unknown>>((resolve) => {
        answers.set(message.id as number, resolve);
        input.write(`${JSON.stringify(message)}\n`);
      });
    await send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    input.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    const answer = await send(call(1));
    expect(answer.result).toEqual({ content: [{ type: 'text', text: 'annotated' }], _meta: OWN_META });
    kept();
    input.end();
  });

  it('over HTTP, in both eras (a 2026-07-28 result adds serverInfo beside it)', async () => {
    const callback = httpTransport(app, { sessions: false }).callback();
    const post = (body: unknown, headers: Record<string, string>) => request(callback).post('/mcp').set(headers).send(JSON.stringify(body));
    const legacy = await post(call(1), { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2025-11-25' });
    expect(legacy.body.result).toEqual({ content: [{ type: 'text', text: 'annotated' }], _meta: OWN_META });
    const body = perRequestBody('tools/call', { name: 'annotated', arguments: {} });
    const modern = await post(body, perRequestHeaders(body));
    expect(modern.body.result._meta).toEqual({
      ...OWN_META,
      'io.modelcontextprotocol/serverInfo': { name: 'result-meta', version: '1.0.0' },
    });
    kept();
  });
});
