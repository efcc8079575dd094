import { join } from 'node:path';
import { ROOT } from '../helpers/paths';
import { RawStdioPeer } from '../helpers/raw-stdio';

const fixture = (name: string) => join(ROOT, 'dist', 'test', 'fixtures', `${name}.js`);

/** console.log in a stdio server's own code must never reach stdout, which carries protocol messages only. */
describe('console output of a stdio server (real child process)', () => {
  async function callAndEnd(peer: RawStdioPeer): Promise<void> {
    await peer.initialize();
    peer.send({ jsonrpc: '2.0', id: 'shout', method: 'tools/call', params: { name: 'shout', arguments: {} } });
    const answer = await peer.response('shout');
    expect((answer.result as { content: { text: string }[] }).content[0].text).toBe('shouted');
    peer.endInput();
    expect(await peer.exited).toBe(0);
  }

  it('keeps logs written at import time, in constructors and in handlers off stdout (early import)', async () => {
    const peer = new RawStdioPeer(fixture('noisy-stdio-server'), ['--noisy-import']);
    await callAndEnd(peer);
    expect(peer.garbage).toEqual([]);
    expect(peer.lines.every((m) => m.jsonrpc === '2.0')).toBe(true);
    for (const noise of [
      'noise at import time',
      'noise in a constructor',
      'more noise in a constructor',
      'noise in a handler',
      'debug noise in a handler',
    ]) {
      expect(peer.stderr).toContain(noise);
    }
  }, 30_000);

  it('keeps constructor and handler logs off stdout with create() and listen(stdio()) alone', async () => {
    const peer = new RawStdioPeer(fixture('noisy-late-stdio-server'));
    await callAndEnd(peer);
    expect(peer.garbage).toEqual([]);
    expect(peer.stderr).toContain('noise in a constructor');
    expect(peer.stderr).toContain('noise in a handler');
  }, 30_000);

  it('keeps the redirect of a stdio server when another application of the process is created and closed', async () => {
    const peer = new RawStdioPeer(fixture('console-stdio-server'), ['--second-app']);
    await callAndEnd(peer);
    expect(peer.garbage).toEqual([]);
    expect(peer.stderr).toContain('noise in a handler');
  }, 30_000);

  it('leaves console.log on stdout with listen(stdio({ redirectConsole: false }))', async () => {
    const peer = new RawStdioPeer(fixture('console-stdio-server'), ['--keep-console']);
    await callAndEnd(peer);
    expect(peer.garbage).toEqual(['noise in a handler', 'debug noise in a handler']);
    expect(peer.stderr).not.toContain('noise in a handler');
    // Constructors run in create(), before the application knows how it will be served: their output is on stderr.
    expect(peer.stderr).toContain('noise in a constructor');
  }, 30_000);
});
