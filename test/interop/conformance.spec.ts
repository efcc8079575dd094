import { spawn } from 'node:child_process';
import { CONFORMANCE_CLI, CONFORMANCE_MAIN, ROOT } from '../helpers/paths';
import { spawnHttpServer } from '../helpers/spawn-server';

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.13, `--suite all`:
 * active and pending scenarios) against samples/conformance over real HTTP.
 */
describe('official MCP conformance suite', () => {
  it('passes every server scenario with no failure', async () => {
    const server = await spawnHttpServer(CONFORMANCE_MAIN);
    try {
      // The DNS-rebinding scenario insists on a localhost URL.
      const url = `http://localhost:${server.port}/mcp`;
      const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
        const cli = spawn(process.execPath, [CONFORMANCE_CLI, 'server', '--url', url, '--suite', 'all'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        cli.stdout.on('data', (c: Buffer) => (output += c.toString()));
        cli.stderr.on('data', (c: Buffer) => (output += c.toString()));
        cli.on('exit', (exit) => resolve({ code: exit, output }));
      });
      const summary = output.slice(output.indexOf('=== SUMMARY ==='));
      process.stdout.write(`${summary}\n`);
      const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
      expect(total).not.toBeNull();
      expect({ failed: Number(total![2]), code }).toEqual({ failed: 0, code: 0 });
      expect(Number(total![1])).toBeGreaterThanOrEqual(46);
      expect(summary).not.toContain('✗');
    } finally {
      await server.stop();
    }
  }, 240_000);
});
