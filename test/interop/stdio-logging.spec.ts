import { join } from 'node:path';
import { ROOT } from '../helpers/paths';
import { RawStdioPeer } from '../helpers/raw-stdio';

/** The server log of a stdio server goes to stderr, in JSON lines when asked; stdout carries protocol only. */
describe('server log of a stdio server (real child process)', () => {
  it('writes a failing request to stderr as a JSON line with its id and method, and nothing but JSON-RPC to stdout', async () => {
    const peer = new RawStdioPeer(join(ROOT, 'dist', 'test', 'fixtures', 'logging-stdio-server.js'));
    await peer.initialize();
    peer.send({ jsonrpc: '2.0', id: 'fail-1', method: 'tools/call', params: { name: 'broken', arguments: {} } });
    const answer = await peer.response('fail-1');
    expect((answer.result as { isError: boolean }).isError).toBe(true);
    peer.endInput();
    expect(await peer.exited).toBe(0);
    expect(peer.garbage).toEqual([]);
    expect(peer.lines.every((m) => m.jsonrpc === '2.0')).toBe(true);
    const entries = peer.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const failure = entries.find((e) => String(e.msg).includes('threw'));
    expect(failure).toMatchObject({
      level: 'error',
      name: 'logging-stdio',
      requestId: 'fail-1',
      method: 'tools/call',
      err: { message: 'wires crossed' },
    });
  }, 30_000);
});
