import { FAULTY_SERVER } from '../helpers/paths';
import { RawStdioPeer } from '../helpers/raw-stdio';
import { waitFor } from '../helpers/wait-for';

/** Bad input over a real stdio process: each gets the spec's error, and the server keeps serving. */
describe('stdio bad input (real child process)', () => {
  let peer: RawStdioPeer;
  let seq = 0;

  beforeAll(async () => {
    peer = new RawStdioPeer(FAULTY_SERVER);
    await peer.initialize();
  });
  afterAll(async () => {
    peer.endInput();
    await peer.exited;
    expect(peer.garbage).toEqual([]);
  });

  /** Proves the server still answers after whatever the test did. */
  async function stillServing(): Promise<void> {
    const id = `ping-${++seq}`;
    peer.send({ jsonrpc: '2.0', id, method: 'ping' });
    expect(await peer.response(id)).toEqual({ jsonrpc: '2.0', id, result: {} });
  }

  it('answers a malformed JSON line with -32700 and id null', async () => {
    const before = peer.lines.length;
    peer.write('{"jsonrpc":"2.0","id":1,"method":\n');
    const error = await peer.next((m) => peer.lines.indexOf(m) >= before && (m.error as { code?: number })?.code === -32700);
    expect(error).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } });
    await stillServing();
  });

  it.each([
    ['wrong jsonrpc version', { jsonrpc: '1.0', id: 'v1', method: 'ping' }, 'v1'],
    ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }, null],
    ['a batch array', [{ jsonrpc: '2.0', id: 'b1', method: 'ping' }], null],
    ['params that are not an object', { jsonrpc: '2.0', id: 'p1', method: 'ping', params: [1] }, 'p1'],
    ['a bare string', 'hello', null],
  ])('answers %s with -32600', async (_label, message, id) => {
    const before = peer.lines.length;
    peer.send(message);
    const error = await peer.next((m) => peer.lines.indexOf(m) >= before && (m.error as { code?: number })?.code === -32600);
    expect(error.id).toEqual(id);
    await stillServing();
  });

  it('answers an unknown method with -32601', async () => {
    peer.send({ jsonrpc: '2.0', id: 'm1', method: 'tools/explode' });
    expect(await peer.response('m1')).toMatchObject({ error: { code: -32601 } });
  });

  it.each([
    ['tools/call without name', 'tools/call', { arguments: {} }],
    ['tools/call with a numeric name', 'tools/call', { name: 5 }],
    ['tools/call with array arguments', 'tools/call', { name: 'echo', arguments: ['x'] }],
    ['an unknown tool', 'tools/call', { name: 'no-such-tool', arguments: {} }],
    ['an unknown prompt', 'prompts/get', { name: 'no-such-prompt' }],
    ['prompts/get with a non-string argument', 'prompts/get', { name: 'summarize-note', arguments: { id: 3 } }],
    ['resources/read without uri', 'resources/read', {}],
    ['an invalid cursor', 'tools/list', { cursor: 'not-a-cursor' }],
    ['a cursor of another list', 'prompts/list', { cursor: Buffer.from('tools:1').toString('base64url') }],
    ['an invalid log level', 'logging/setLevel', { level: 'verbose' }],
    ['completion/complete without ref', 'completion/complete', { argument: { name: 'id', value: '' } }],
  ])('answers %s with -32602', async (_label, method, params) => {
    const id = `bad-${++seq}`;
    peer.send({ jsonrpc: '2.0', id, method, params });
    expect(await peer.response(id)).toMatchObject({ error: { code: -32602, message: expect.any(String) } });
  });

  it('answers a request whose echo would not serialize (a 10,000-deep cursor) and keeps serving', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    peer.write(`{"jsonrpc":"2.0","id":"deep-cursor","method":"tools/list","params":{"cursor":${deep}}}\n`);
    const reply = await peer.response('deep-cursor');
    expect(reply).toMatchObject({ error: { code: -32602 } });
    expect(JSON.stringify(reply).length).toBeLessThan(500);
    await stillServing();
  });

  it.each([
    [
      'a 10,000-deep tool argument',
      'tools/call',
      `{"name":"search","arguments":{"query":"x","filter":${'{"a":'.repeat(10_000)}{}${'}'.repeat(10_000)}}}`,
    ],
    ['a "constructor" key in tool arguments', 'tools/call', '{"name":"search","arguments":{"query":{"constructor":1}}}'],
    ['an object as tasks/list cursor', 'tasks/list', '{"cursor":{"a":1}}'],
  ])('answers %s as a client mistake, logging no stack', async (label, method, params) => {
    const id = `client-${++seq}`;
    const stderrBefore = peer.stderr.length;
    peer.write(`{"jsonrpc":"2.0","id":"${id}","method":"${method}","params":${params}}\n`);
    const reply = await peer.response(id);
    if (method === 'tools/call')
      expect(reply).toMatchObject({
        result: { isError: true, content: [{ type: 'text', text: expect.stringContaining('Invalid arguments') }] },
      });
    else expect(reply).toMatchObject({ error: { code: -32602 } });
    await stillServing();
    const logged = peer.stderr.slice(stderrBefore);
    expect(logged).not.toMatch(/\n\s+at /);
    expect(logged.split('\n').filter(Boolean).length).toBeLessThanOrEqual(1);
    expect(label).toBeTruthy();
  });

  it('survives a cancellation whose reason cannot be turned into a string', async () => {
    // The server takes lines in order, a request's handler started before the next line is read: the call
    // is in flight when its cancellation arrives.
    peer.send({ jsonrpc: '2.0', id: 'to-cancel', method: 'tools/call', params: { name: 'hold', arguments: { key: 'to-cancel' } } });
    peer.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"to-cancel","reason":{"toString":1}}}\n');
    await stillServing();
    // Released, the call ends unanswered: the cancellation reached it (an answer would come before the next ping's).
    peer.send({
      jsonrpc: '2.0',
      id: 'release-cancelled',
      method: 'tools/call',
      params: { name: 'release', arguments: { key: 'to-cancel' } },
    });
    expect(await peer.response('release-cancelled')).toMatchObject({ result: { content: [{ type: 'text', text: 'ok' }] } });
    await stillServing();
    expect(peer.lines.filter((m) => m.id === 'to-cancel')).toEqual([]);
  });

  it('answers an unknown resource with -32002', async () => {
    peer.send({ jsonrpc: '2.0', id: 'r1', method: 'resources/read', params: { uri: 'file:///etc/passwd' } });
    expect(await peer.response('r1')).toMatchObject({ error: { code: -32002, data: { uri: 'file:///etc/passwd' } } });
  });

  it('answers a multi-megabyte message, and rejects one over the limit without dying', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    peer.send({ jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: 'echo', arguments: { text: big } } });
    const reply = await peer.response('big');
    expect((reply.result as { content: { text: string }[] }).content[0].text.length).toBe(big.length);

    const before = peer.lines.length;
    peer.send({
      jsonrpc: '2.0',
      id: 'huge',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'y'.repeat(6 * 1024 * 1024) } },
    });
    const error = await peer.next((m) => peer.lines.indexOf(m) >= before && m.id === null);
    expect(error).toMatchObject({ error: { code: -32600, message: expect.stringContaining('maximum size') } });
    await stillServing();
  });

  it('survives handlers that throw, reject or return invalid output, and never leaks their details', async () => {
    for (const name of ['explode', 'rejectLater', 'badOutput']) {
      const id = `t-${name}`;
      peer.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
      const reply = await peer.response(id);
      const result = reply.result as { isError: boolean; content: { text: string }[] };
      expect(result.isError).toBe(true);
      expect(result.content[0].text).not.toMatch(/hunter2|internal detail/);
    }
    expect(peer.stderr).toContain('hunter2'); // the detail goes to the server's log only
    await stillServing();
  });

  it('handles messages split across writes, several per write, and CRLF line ends', async () => {
    const a = JSON.stringify({ jsonrpc: '2.0', id: 'split', method: 'ping' });
    const read = peer.bytesRead();
    peer.write(a.slice(0, 10));
    // The server has read the first part before the rest is written: it meets the message split.
    await waitFor(() => peer.bytesRead() >= read + 10, { what: 'the server to read the first part of the message' });
    peer.write(`${a.slice(10)}\r\n${JSON.stringify({ jsonrpc: '2.0', id: 'two', method: 'ping' })}\n\n`);
    expect(await peer.response('split')).toEqual({ jsonrpc: '2.0', id: 'split', result: {} });
    expect(await peer.response('two')).toEqual({ jsonrpc: '2.0', id: 'two', result: {} });
  });

  it('serves pipelined requests concurrently (a call still running does not block the next one)', async () => {
    // `hold` answers only after `release` has run: served one at a time, neither would ever answer.
    peer.send({ jsonrpc: '2.0', id: 'held', method: 'tools/call', params: { name: 'hold', arguments: { key: 'pipelined' } } });
    peer.send({ jsonrpc: '2.0', id: 'releaser', method: 'tools/call', params: { name: 'release', arguments: { key: 'pipelined' } } });
    expect(await peer.response('releaser')).toMatchObject({ result: { content: [{ type: 'text', text: 'ok' }] } });
    expect(await peer.response('held')).toMatchObject({ result: { content: [{ type: 'text', text: 'released pipelined' }] } });
  });

  it('writes every progress notification, increasing, before the response it belongs to', async () => {
    const before = peer.lines.length;
    peer.send({
      jsonrpc: '2.0',
      id: 'prog',
      method: 'tools/call',
      params: { name: 'reindex', arguments: { batches: 4, delayMs: 5 }, _meta: { progressToken: 'tok' } },
    });
    await peer.response('prog');
    const after = peer.lines.slice(before);
    const progress = after.filter(
      (m) => m.method === 'notifications/progress' && (m.params as { progressToken: string }).progressToken === 'tok',
    );
    expect(progress.map((m) => (m.params as { progress: number }).progress)).toEqual([1, 2, 3, 4]);
    expect(after.findIndex((m) => m.id === 'prog')).toBeGreaterThan(after.indexOf(progress[3]));
  });

  it('sends no response to a cancelled request', async () => {
    // echo ignores cancellation; its timers fire in the order they were set, so when the marker answers,
    // the doomed handler has finished too, and any response to it would already be on stdout.
    peer.send({ jsonrpc: '2.0', id: 'doomed', method: 'tools/call', params: { name: 'echo', arguments: { text: 'never', delayMs: 50 } } });
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'doomed', reason: 'test' } });
    peer.send({ jsonrpc: '2.0', id: 'marker', method: 'tools/call', params: { name: 'echo', arguments: { text: 'after', delayMs: 50 } } });
    await peer.response('marker');
    expect(peer.lines.some((m) => m.id === 'doomed')).toBe(false);
    await stillServing();
  });
});

describe('stdio lifecycle (real child process)', () => {
  it('refuses requests before initialize, then exits cleanly with code 0 when stdin ends', async () => {
    const peer = new RawStdioPeer(FAULTY_SERVER);
    peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(await peer.response(1)).toMatchObject({ error: { code: -32600 } });
    peer.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(await peer.response(2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    await peer.initialize();
    peer.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'again', version: '1' } },
    });
    expect(await peer.response(3)).toMatchObject({ error: { code: -32600 } });
    peer.endInput();
    expect(await peer.exited).toBe(0);
  });

  it('ends cleanly, without an unhandled EPIPE, when the client closes its end of stdout', async () => {
    const peer = new RawStdioPeer(FAULTY_SERVER);
    await peer.initialize();
    peer.closeOutput();
    for (let i = 0; i < 20; i++) peer.send({ jsonrpc: '2.0', id: `gone-${i}`, method: 'ping' });
    expect(await peer.exited).toBe(0);
    expect(peer.stderr).not.toMatch(/Unhandled 'error' event/);
  });

  it('finishes a request in flight before exiting when stdin ends', async () => {
    const peer = new RawStdioPeer(FAULTY_SERVER);
    await peer.initialize();
    peer.send({ jsonrpc: '2.0', id: 'last', method: 'tools/call', params: { name: 'echo', arguments: { text: 'bye', delayMs: 100 } } });
    peer.endInput();
    expect(await peer.exited).toBe(0);
    expect(peer.lines.find((m) => m.id === 'last')).toMatchObject({ result: { content: [{ type: 'text', text: 'bye' }] } });
  });

  it.each([
    ['2025-11-25', '2025-11-25'],
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    ['2024-11-05', '2024-11-05'],
    ['1999-01-01', '2025-11-25'],
  ])('answers initialize with protocol version %s by %s', async (requested, expected) => {
    const peer = new RawStdioPeer(FAULTY_SERVER);
    peer.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: requested, capabilities: {}, clientInfo: { name: 'v', version: '1' } },
    });
    expect(await peer.response(1)).toMatchObject({ result: { protocolVersion: expected } });
    peer.endInput();
    expect(await peer.exited).toBe(0);
  });
});
