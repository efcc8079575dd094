import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { envelope } from '../helpers/per-request-http';
import { ROOT } from '../helpers/paths';
import { RawStdioPeer } from '../helpers/raw-stdio';

const ERAS_SERVER = join(ROOT, 'dist', 'test', 'fixtures', 'eras-server.js');
const ANSWER = { 'elicitation-0': { action: 'accept', content: { name: 'Eve' } } };

type Message = Record<string, unknown> & {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
};

/** A stdio process pinned to 2026-07-28 by its first request, driven with raw JSON lines. */
class PerRequestPeer {
  private seq = 0;
  constructor(readonly peer: RawStdioPeer) {}

  async call(method: string, params: Record<string, unknown> = {}): Promise<Message> {
    const id = `r${++this.seq}`;
    this.peer.send({ jsonrpc: '2.0', id, method, params: '_meta' in params ? params : { ...params, _meta: envelope() } });
    return this.peer.response(id);
  }

  async firstRound(): Promise<string> {
    const reply = await this.call('tools/call', { name: 'askName', arguments: {} });
    expect(reply.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'elicitation-0': { method: 'elicitation/create' } },
    });
    return reply.result!.requestState as string;
  }

  async stillServing(): Promise<void> {
    const reply = await this.call('tools/call', { name: 'echo', arguments: { text: 'still here' } });
    expect(reply.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'echo: still here' }] });
  }
}

/** Hostile 2026-07-28 input over a real stdio process: the spec's codes, one process serving throughout. */
describe('2026-07-28 hostile input over stdio (real child process)', () => {
  let raw: RawStdioPeer;
  let peer: PerRequestPeer;

  beforeAll(async () => {
    raw = new RawStdioPeer(ERAS_SERVER, ['--stdio']);
    peer = new PerRequestPeer(raw);
    const discover = await peer.call('server/discover');
    expect(discover.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining(['2026-07-28', '2025-11-25']),
    });
  });
  afterEach(() => peer.stillServing());
  afterAll(async () => {
    raw.endInput();
    expect(await raw.exited).toBe(0);
    expect(raw.garbage).toEqual([]);
  });

  it.each([
    ['not an object', 'meta'],
    ['an array', [envelope()]],
    ['with a numeric protocolVersion', envelope({ 'io.modelcontextprotocol/protocolVersion': 20260728 })],
    ['without protocolVersion', envelope({ 'io.modelcontextprotocol/protocolVersion': undefined })],
    ['without clientCapabilities', envelope({ 'io.modelcontextprotocol/clientCapabilities': undefined })],
    ['with array clientCapabilities', envelope({ 'io.modelcontextprotocol/clientCapabilities': [] })],
    ['with an unknown logLevel', envelope({ 'io.modelcontextprotocol/logLevel': 'loud' })],
  ])('refuses _meta %s with -32602', async (_label, meta) => {
    const reply = await peer.call('tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: meta });
    expect(reply.error?.code).toBe(-32602);
  });

  it('refuses an unsupported version with -32022 naming the versions served', async () => {
    const reply = await peer.call('server/discover', { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' }) });
    expect(reply.error).toMatchObject({ code: -32022, data: { supported: expect.arrayContaining(['2026-07-28']), requested: 'v999.0.0' } });
  });

  it.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'tasks/get', 'tasks/list', 'unknown/method'])(
    'answers an enveloped %s with -32601',
    async (method) => {
      const reply = await peer.call(method, method === 'tasks/get' ? { taskId: 't1' } : {});
      expect(reply.error?.code).toBe(-32601);
    },
  );

  it('refuses a handshake initialize once the process is pinned to 2026-07-28, naming the versions served', async () => {
    raw.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '1' } },
    });
    expect(((await raw.response('init')) as Message).error).toMatchObject({
      code: -32022,
      data: { supported: expect.arrayContaining(['2026-07-28']) },
    });
  });

  it('completes a multi round-trip request, and refuses a tampered, oversized or replayed requestState', async () => {
    const state = await peer.firstRound();
    const [body, mac] = state.split('.');
    for (const bad of [`${body}.${mac.slice(0, -2)}AA`, 'not-a-state', 42, 'x'.repeat(262_145)]) {
      const reply = await peer.call('tools/call', { name: 'askName', arguments: {}, requestState: bad, inputResponses: ANSWER });
      expect(reply.error?.code).toBe(-32602);
    }
    const replayed = await peer.call('tools/call', { name: 'order', arguments: { tag: 'x' }, requestState: state, inputResponses: {} });
    expect(replayed.error).toMatchObject({ code: -32602, message: expect.stringContaining('another request') });
    const done = await peer.call('tools/call', { name: 'askName', arguments: {}, requestState: state, inputResponses: ANSWER });
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ text: 'hello Eve' }] });
  });

  it.each([
    ['an array', [ANSWER['elicitation-0']]],
    ['a string', 'yes'],
    ['an answer without an action', { 'elicitation-0': { content: {} } }],
  ])('refuses inputResponses that is %s with -32602', async (_label, inputResponses) => {
    const state = await peer.firstRound();
    const reply = await peer.call('tools/call', { name: 'askName', arguments: {}, requestState: state, inputResponses });
    expect(reply.error?.code).toBe(-32602);
  });

  it('refuses a batch with -32600 and ignores a stray response', async () => {
    const before = raw.lines.length;
    raw.send([{ jsonrpc: '2.0', id: 'b1', method: 'tools/list', params: { _meta: envelope() } }]);
    const error = await raw.next((m) => raw.lines.indexOf(m) >= before && (m.error as { code?: number })?.code === -32600);
    expect(error.id).toBeNull();
    raw.send({ jsonrpc: '2.0', id: 'nobody-asked', result: {} });
  });
});

describe('2026-07-28 requestState lifetime over stdio', () => {
  it('refuses an expired requestState with -32602, and serves a fresh request', async () => {
    const raw = new RawStdioPeer(ERAS_SERVER, ['--stdio'], process.execPath, { env: { ...process.env, STATE_TTL_MS: '1' } });
    const peer = new PerRequestPeer(raw);
    const state = await peer.firstRound();
    await delay(5); // past the 1 ms lifetime
    const reply = await peer.call('tools/call', { name: 'askName', arguments: {}, requestState: state, inputResponses: ANSWER });
    expect(reply.error).toMatchObject({ code: -32602, message: expect.stringContaining('expired') });
    await peer.stillServing();
    raw.endInput();
    expect(await raw.exited).toBe(0);
  });
});
