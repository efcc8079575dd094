import { join } from 'node:path';
import { ROOT } from '../helpers/paths';
import { RawStdioPeer } from '../helpers/raw-stdio';

/**
 * Importing mcpkit for a stdio server loads neither Koa nor ioredis: HTTP loads on first use and
 * Redis lives behind `mcpkit/redis`. Checked in a real process, whose `require.cache` is Node's own.
 */
describe('what a stdio server loads', () => {
  it('answers a tools/call without having loaded koa, @koa/router or ioredis', async () => {
    const peer = new RawStdioPeer(join(ROOT, 'dist', 'test', 'fixtures', 'stdio-weight-server.js'));
    try {
      await peer.initialize();
      peer.send({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'loaded', arguments: {} } });
      const answer = await peer.response('w');
      expect((answer.result as { content: { text: string }[] }).content[0].text).toBe('[]');
    } finally {
      peer.endInput();
      await peer.exited;
    }
  });

  it('loads koa once HTTP is used (the check above can see it)', async () => {
    const script = `require('reflect-metadata'); require(${JSON.stringify(join(ROOT, 'dist', 'src'))});
      const keys = () => Object.keys(require.cache).filter((f) => /node_modules[\\\\/]koa[\\\\/]/.test(f)).length;
      const before = keys(); const { StreamableHttpTransport } = require(${JSON.stringify(join(ROOT, 'dist', 'src', 'transports', 'http', 'streamable-http'))});
      new StreamableHttpTransport({ createSession: () => { throw new Error('unused'); }, logError: () => {} }).close();
      process.stdout.write(JSON.stringify({ before, after: keys() }) + '\\n');`;
    const peer = new RawStdioPeer('', ['-e', script]);
    const line = await peer.next(() => true);
    expect(line.before).toBe(0);
    expect(line.after).toBeGreaterThan(0);
    await peer.exited;
  });
});
