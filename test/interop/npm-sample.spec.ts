import { RawStdioPeer } from '../helpers/raw-stdio';

/** The README contract: `npm run -s sample -- --stdio` serves the sample with only protocol messages on stdout. */
describe('npm run -s sample -- --stdio', () => {
  it('serves MCP over stdio and prints nothing else on stdout', async () => {
    const peer = new RawStdioPeer('', ['run', '-s', 'sample', '--', '--stdio'], 'npm');
    // `npm run sample` compiles the project first (tsc): seconds alone, more while the suite runs beside it.
    await peer.initialize(50_000);
    peer.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    const list = await peer.response('list');
    expect((list.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain('addNote');
    peer.endInput();
    expect(await peer.exited).toBe(0);
    expect(peer.garbage).toEqual([]);
    expect(peer.lines.every((m) => m.jsonrpc === '2.0')).toBe(true);
    expect(peer.lines).toHaveLength(2);
  }, 90_000);
});
