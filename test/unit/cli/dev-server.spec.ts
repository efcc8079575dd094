import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { DevServer } from '../../../src/cli/dev-server';

/**
 * A stand-in stdio server: answers every request with its pid and what it has seen, except
 * `slow`, which it never answers.
 */
const FAKE_SERVER = `
const seen = [];
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  seen.push(m.method);
  if (m.id !== undefined && m.method !== 'slow') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { pid: process.pid, seen } }) + '\\n');
});
`;

describe('DevServer over stdio', () => {
  let dir: string;
  let client: PassThrough;
  let out: Record<string, unknown>[];
  let server: DevServer;
  const logs: string[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcpkit-dev-server-'));
    writeFileSync(join(dir, 'server.js'), FAKE_SERVER);
    out = [];
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) out.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    server = new DevServer({ js: join(dir, 'server.js'), args: [], env: process.env, stdio: true, log: (l) => logs.push(l) }, stdout);
    client = new PassThrough();
    server.attachClient(client, () => undefined);
  });

  afterEach(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const send = (message: Record<string, unknown>) => client.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  const answer = async (id: unknown) => {
    for (let i = 0; i < 400; i++) {
      const found = out.find((m) => m.id === id);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no answer to ${String(id)}: ${JSON.stringify(out)}`);
  };

  it("replays the client's initialize to a restarted server, hides that answer, and fails what the old one left unanswered", async () => {
    server.start();
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    const first = (await answer(1)).result as { pid: number };
    send({ method: 'notifications/initialized' });
    send({ id: 'slow', method: 'slow' });
    send({ id: 2, method: 'tools/list' });
    await answer(2);

    await server.restart();
    expect(await answer('slow')).toMatchObject({ error: { code: -32603, message: expect.stringContaining('restarted') } });
    send({ id: 3, method: 'tools/list' });
    const after = (await answer(3)).result as { pid: number; seen: string[] };
    expect(after.pid).not.toBe(first.pid);
    expect(after.seen).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
    expect(out.map((m) => m.id)).toEqual([1, 2, 'slow', 3]);
  });

  it('holds what the client sends while no server runs, and delivers it to the next one', async () => {
    server.start();
    await server.stop();
    send({ id: 'held', method: 'ping' });
    server.start();
    expect(await answer('held')).toMatchObject({ result: { seen: ['ping'] } });
  });

  it('starts no new server once closed, even from a restart under way', async () => {
    server.start();
    expect(server.running).toBe(true);
    await server.close();
    await server.restart();
    expect(server.running).toBe(false);
  });
});
