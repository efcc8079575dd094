import { setTimeout as delay } from 'node:timers/promises';
import { McpApplication } from '../../../src';
import { StaticTokenVerifier } from '../../../src/auth';
import type { ApplicationOptions } from '../../../src';
import type { HttpOptions } from '../../../src/http';
import { ErasModule } from '../../fixtures/eras-tools';
import { envelope, perRequestBody, perRequestHeaders, postPerRequest, postRaw, type RawReply } from '../../helpers/per-request-http';
import { httpServer } from '../../../src/http';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };

async function serve(options: ApplicationOptions = {}, http: HttpOptions = {}) {
  const app = await McpApplication.create(ErasModule, { logger: quiet, ...options });
  const bound = await app.listen(httpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 600_000, ...http }));
  return { app, url: bound.url };
}

function expectError(reply: RawReply, status: number, code: number): void {
  expect({ status: reply.status, code: reply.body.error?.code }).toEqual({ status, code });
  expect(reply.contentType).toContain('application/json');
}

/** The first round of askName: an InputRequiredResult with its sealed requestState. */
async function firstRound(url: string, headers: Record<string, string | undefined> = {}): Promise<string> {
  const reply = await postPerRequest(url, 'tools/call', { name: 'askName', arguments: {} }, headers);
  expect(reply.body.result).toMatchObject({
    resultType: 'input_required',
    inputRequests: { 'elicitation-0': { method: 'elicitation/create' } },
  });
  return reply.body.result!.requestState as string;
}

const ANSWER = { 'elicitation-0': { action: 'accept', content: { name: 'Eve' } } };

/** Hostile 2026-07-28 input over real HTTP: each gets the spec's code, and the server keeps serving. */
describe('2026-07-28 hostile input over HTTP', () => {
  let main: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => (main = await serve()));
  afterAll(() => main.app.close());

  // After each bad request, a good one on the same server is served.
  afterEach(async () => {
    const good = await postPerRequest(main.url, 'tools/call', { name: 'echo', arguments: { text: 'still here' } });
    expect(good.status).toBe(200);
    expect(good.body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'echo: still here' }] });
  });

  describe('the _meta envelope (-32602, HTTP 400)', () => {
    it.each([
      ['missing', undefined],
      ['not an object', 'meta'],
      ['an array', [envelope()]],
      ['null', null],
      ['with a numeric protocolVersion', envelope({ 'io.modelcontextprotocol/protocolVersion': 20260728 })],
      ['without protocolVersion', envelope({ 'io.modelcontextprotocol/protocolVersion': undefined })],
      ['without clientCapabilities', envelope({ 'io.modelcontextprotocol/clientCapabilities': undefined })],
      ['with array clientCapabilities', envelope({ 'io.modelcontextprotocol/clientCapabilities': [] })],
      ['with string clientCapabilities', envelope({ 'io.modelcontextprotocol/clientCapabilities': 'all' })],
      ['with a clientInfo that is not an object', envelope({ 'io.modelcontextprotocol/clientInfo': 'me' })],
      ['with an unknown logLevel', envelope({ 'io.modelcontextprotocol/logLevel': 'loud' })],
      ['with a numeric logLevel', envelope({ 'io.modelcontextprotocol/logLevel': 3 })],
    ])('refuses _meta %s', async (_label, meta) => {
      const body = { jsonrpc: '2.0', id: 'm1', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, _meta: meta } };
      const reply = await postRaw(main.url, body, perRequestHeaders(body));
      expectError(reply, 400, -32602);
      expect(reply.body.id).toBe('m1');
    });
  });

  describe('headers (-32020, HTTP 400)', () => {
    it('refuses a header version that differs from the body', async () => {
      const body = perRequestBody('tools/list', { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }) });
      expectError(await postRaw(main.url, body, perRequestHeaders(body, { 'mcp-protocol-version': '2025-11-25' })), 400, -32020);
      const other = perRequestBody('tools/list', { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' }) });
      expectError(await postRaw(main.url, other, perRequestHeaders(other)), 400, -32020);
    });

    it('refuses an enveloped body without MCP-Protocol-Version', async () => {
      expectError(await postPerRequest(main.url, 'tools/list', {}, { 'mcp-protocol-version': undefined }), 400, -32020);
    });

    it.each([
      ['a missing Mcp-Method', 'tools/list', {}, { 'mcp-method': undefined }],
      ['a mismatched Mcp-Method', 'tools/list', {}, { 'mcp-method': 'prompts/list' }],
      ['an Mcp-Method of another case', 'tools/list', {}, { 'mcp-method': 'Tools/List' }],
      ['a missing Mcp-Name', 'tools/call', { name: 'echo', arguments: { text: 'x' } }, { 'mcp-name': undefined }],
      ['a mismatched Mcp-Name', 'tools/call', { name: 'echo', arguments: { text: 'x' } }, { 'mcp-name': 'add' }],
      ['a mismatched Mcp-Name on prompts/get', 'prompts/get', { name: 'topic', arguments: { topic: 'x' } }, { 'mcp-name': 'other' }],
      ['a mismatched Mcp-Name on resources/read', 'resources/read', { uri: 'eras://static' }, { 'mcp-name': 'eras://items/1' }],
      ['a malformed base64 Mcp-Name', 'tools/call', { name: 'echo', arguments: { text: 'x' } }, { 'mcp-name': '=?base64?ZWNob!!?=' }],
      [
        'a base64 Mcp-Name of bytes that are not UTF-8',
        'tools/call',
        { name: 'echo', arguments: { text: 'x' } },
        { 'mcp-name': '=?base64?/w==?=' },
      ],
      [
        'a base64 Mcp-Name of another name',
        'tools/call',
        { name: 'echo', arguments: { text: 'x' } },
        { 'mcp-name': `=?base64?${Buffer.from('add').toString('base64')}?=` },
      ],
    ])('refuses %s', async (_label, method, params, headers) => {
      expectError(await postPerRequest(main.url, method, params, headers), 400, -32020);
    });

    it('serves an Mcp-Name given in base64, and a tool whose name is not ASCII', async () => {
      const plain = await postPerRequest(
        main.url,
        'tools/call',
        { name: 'echo', arguments: { text: 'b64' } },
        { 'mcp-name': `=?base64?${Buffer.from('echo').toString('base64')}?=` },
      );
      expect(plain.body.result).toMatchObject({ content: [{ text: 'echo: b64' }] });
      const unicode = await postPerRequest(main.url, 'tools/call', { name: 'grüße', arguments: { text: 'Welt' } });
      expect(unicode.status).toBe(200);
      expect(unicode.body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'grüße, Welt' }] });
    });
  });

  it('refuses an unsupported version with -32022 naming the versions served (HTTP 400)', async () => {
    const body = perRequestBody('server/discover', { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' }) }, 301);
    const reply = await postRaw(main.url, body, perRequestHeaders(body, { 'mcp-protocol-version': 'v999.0.0' }));
    expectError(reply, 400, -32022);
    expect(reply.body).toMatchObject({
      id: 301,
      error: { data: { supported: expect.arrayContaining(['2026-07-28', '2025-11-25']), requested: 'v999.0.0' } },
    });
  });

  it.each([
    'initialize',
    'ping',
    'logging/setLevel',
    'resources/subscribe',
    'resources/unsubscribe',
    'tasks/get',
    'tasks/list',
    'tasks/result',
    'unknown/method',
    'notifications/initialized',
    // Names of Object.prototype members: no handler table may find them
    'constructor',
    'toString',
    '__proto__',
    'hasOwnProperty',
  ])('answers %s with 404 and -32601', async (method) => {
    const params =
      method === 'initialize'
        ? { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'x', version: '1' } }
        : method === 'tasks/get'
          ? { taskId: 't1' }
          : {};
    const reply = await postPerRequest(main.url, method, params, method === 'tasks/get' ? { 'mcp-name': 't1' } : {});
    expectError(reply, 404, -32601);
  });

  describe('requestState and inputResponses (-32602)', () => {
    it('completes a round trip when nothing is wrong', async () => {
      const state = await firstRound(main.url);
      const reply = await postPerRequest(main.url, 'tools/call', {
        name: 'askName',
        arguments: {},
        requestState: state,
        inputResponses: ANSWER,
      });
      expect(reply.body.result).toMatchObject({ resultType: 'complete', content: [{ text: 'hello Eve' }] });
    });

    it('refuses a tampered requestState', async () => {
      const state = await firstRound(main.url);
      const [body, mac] = state.split('.');
      const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), p: 'admin' })).toString(
        'base64url',
      );
      for (const bad of [`${forged}.${mac}`, `${body}.${mac.slice(0, -2)}AA`, `${body}`, 'not-a-state', '.']) {
        const reply = await postPerRequest(main.url, 'tools/call', {
          name: 'askName',
          arguments: {},
          requestState: bad,
          inputResponses: ANSWER,
        });
        expect(reply.body.error?.code).toBe(-32602);
      }
      for (const bad of [42, { state }, null]) {
        const reply = await postPerRequest(main.url, 'tools/call', {
          name: 'askName',
          arguments: {},
          requestState: bad,
          inputResponses: ANSWER,
        });
        expect(reply.body.error?.code).toBe(-32602);
      }
    });

    it('refuses a requestState larger than maxBytes', async () => {
      const reply = await postPerRequest(main.url, 'tools/call', {
        name: 'askName',
        arguments: {},
        requestState: 'x'.repeat(262_145),
        inputResponses: ANSWER,
      });
      expect(reply.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('larger than') });
    });

    it('refuses a requestState replayed on another tool or with other arguments', async () => {
      const state = await firstRound(main.url);
      const onOrder = await postPerRequest(main.url, 'tools/call', {
        name: 'order',
        arguments: { tag: 'replay' },
        requestState: state,
        inputResponses: {},
      });
      expect(onOrder.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('another request') });
      const orderState = (await postPerRequest(main.url, 'tools/call', { name: 'order', arguments: { tag: 'replay-a' } })).body.result!
        .requestState;
      const otherArgs = await postPerRequest(main.url, 'tools/call', {
        name: 'order',
        arguments: { tag: 'replay-b' },
        requestState: orderState,
        inputResponses: {},
      });
      expect(otherArgs.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('another request') });
      const onPrompt = await postPerRequest(main.url, 'prompts/get', { name: 'topic', arguments: { topic: 'x' }, requestState: state });
      expect(onPrompt.body.error?.code).toBe(-32602);
    });

    it.each([
      ['an array', [ANSWER['elicitation-0']]],
      ['a string', 'yes'],
      ['null', null],
      ['an answer that is a string', { 'elicitation-0': 'yes' }],
      ['an answer without an action', { 'elicitation-0': { content: { name: 'x' } } }],
      ['an answer with an unknown action', { 'elicitation-0': { action: 'maybe' } }],
    ])('refuses inputResponses that is %s', async (_label, inputResponses) => {
      const state = await firstRound(main.url);
      const reply = await postPerRequest(main.url, 'tools/call', { name: 'askName', arguments: {}, requestState: state, inputResponses });
      expect(reply.body.error?.code).toBe(-32602);
    });

    it('refuses a sampling answer without content and a roots answer without roots', async () => {
      const first = (await postPerRequest(main.url, 'tools/call', { name: 'order', arguments: { tag: 'bad-answers' } })).body.result!;
      const second = await postPerRequest(main.url, 'tools/call', {
        name: 'order',
        arguments: { tag: 'bad-answers' },
        requestState: first.requestState,
        inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      });
      expect(second.body.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { describe: { method: 'sampling/createMessage' } },
      });
      const badSample = await postPerRequest(main.url, 'tools/call', {
        name: 'order',
        arguments: { tag: 'bad-answers' },
        requestState: second.body.result!.requestState,
        inputResponses: { describe: { role: 'assistant' } },
      });
      expect(badSample.body.error?.code).toBe(-32602);
      const third = await postPerRequest(main.url, 'tools/call', {
        name: 'order',
        arguments: { tag: 'bad-answers' },
        requestState: second.body.result!.requestState,
        inputResponses: { describe: { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' } },
      });
      const badRoots = await postPerRequest(main.url, 'tools/call', {
        name: 'order',
        arguments: { tag: 'bad-answers' },
        requestState: third.body.result!.requestState,
        inputResponses: { roots: { roots: 'file:///' } },
      });
      expect(badRoots.body.error?.code).toBe(-32602);
    });
  });

  describe('not a single JSON-RPC request', () => {
    it('refuses a batch with -32600 (HTTP 400)', async () => {
      const batch = [perRequestBody('tools/list'), perRequestBody('prompts/list')];
      const reply = await postRaw(main.url, batch, perRequestHeaders({}, { 'mcp-method': 'tools/list' }));
      expectError(reply, 400, -32600);
      expect(reply.body.id).toBeNull();
    });

    it('refuses a JSON-RPC response from a 2026-07-28 client with -32600 (HTTP 400)', async () => {
      const reply = await postRaw(main.url, { jsonrpc: '2.0', id: 5, result: {} }, perRequestHeaders({}));
      expectError(reply, 400, -32600);
    });

    it('refuses invalid JSON with -32700 (HTTP 400)', async () => {
      const reply = await postRaw(main.url, '{"jsonrpc":"2.0","id":1,', perRequestHeaders({}, { 'mcp-method': 'tools/list' }));
      expectError(reply, 400, -32700);
    });

    it('refuses a body larger than maxBodyBytes with 413', async () => {
      const body = perRequestBody('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(700_000) } });
      const reply = await postRaw(main.url, body, perRequestHeaders(body));
      expect(reply.status).toBe(413);
    });
  });
});

describe('2026-07-28 requestState lifetime and caller binding over HTTP', () => {
  it('refuses an expired requestState, then serves a fresh round trip', async () => {
    const { app, url } = await serve({ requestState: { ttlMs: 1 } });
    try {
      const state = await firstRound(url);
      await delay(5); // past the 1 ms lifetime
      const reply = await postPerRequest(url, 'tools/call', {
        name: 'askName',
        arguments: {},
        requestState: state,
        inputResponses: ANSWER,
      });
      expect(reply.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('expired') });
      const fresh = await postPerRequest(url, 'tools/call', { name: 'askName', arguments: {}, inputResponses: ANSWER });
      expect(fresh.body.result).toMatchObject({ resultType: 'complete', content: [{ text: 'hello Eve' }] });
    } finally {
      await app.close();
    }
  });

  it('refuses a requestState replayed by another principal, and serves its owner', async () => {
    const verifier = new StaticTokenVerifier({ 'alice-token': { subject: 'alice' }, 'bob-token': { subject: 'bob' } });
    const { app, url } = await serve({}, { auth: { authorizationServers: ['https://as.example.com'], verifier } });
    try {
      const alice = { authorization: 'Bearer alice-token' };
      const bob = { authorization: 'Bearer bob-token' };
      const state = await firstRound(url, alice);
      const stolen = await postPerRequest(
        url,
        'tools/call',
        { name: 'askName', arguments: {}, requestState: state, inputResponses: ANSWER },
        bob,
      );
      expect(stolen.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('another caller') });
      const owner = await postPerRequest(
        url,
        'tools/call',
        { name: 'askName', arguments: {}, requestState: state, inputResponses: ANSWER },
        alice,
      );
      expect(owner.body.result).toMatchObject({ resultType: 'complete', content: [{ text: 'hello Eve' }] });
      const list = await postPerRequest(url, 'tools/list', {}, bob);
      expect(list.body.result).toMatchObject({ cacheScope: 'private' });
    } finally {
      await app.close();
    }
  });
});
