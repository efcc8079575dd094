import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CLI, mcpkit } from '../../helpers/cli';
import { postPerRequest } from '../../helpers/per-request-http';
import { ROOT } from '../../helpers/paths';
import { spawnHttpServer } from '../../helpers/spawn-server';
import { waitFor } from '../../helpers/wait-for';

const FAR = join(ROOT, 'test', 'fixtures', 'sdk-far-server.mjs');
const FAR_STDIO = ['--', process.execPath, FAR, '--stdio'];
type Text = { content: { type: string; text: string }[] };
const textOf = (r: unknown) => (r as Text).content.map((c) => c.text).join('');

/** Starts `mcpkit proxy <args>` and resolves with the URL it prints once it serves HTTP. */
async function startProxy(
  args: string[],
): Promise<{ url: string; child: ChildProcess; stderr: () => string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [CLI, 'proxy', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const m = /mcpkit proxy: serving MCP at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    void exited.then((code) => reject(new Error(`proxy exited with ${code}: ${stderr}`)));
  });
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    const code = await exited;
    expect(stdout).toBe(''); // HTTP front: nothing on stdout
    return code;
  };
  return { url, child, stderr: () => stderr, stop };
}

async function sdkClient(url: string): Promise<Client> {
  const client = new Client({ name: 'sdk-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('mcpkit proxy', () => {
  it('bridges a stdio SDK 1.x server to Streamable HTTP: its names and serverInfo, elicitation, and 2026-07-28 requests', async () => {
    const proxy = await startProxy(['--http', '0', ...FAR_STDIO]);
    const client = await sdkClient(proxy.url);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'sdk-far', version: '1.2.3' });
      expect(client.getInstructions()).toBe('A far server for the mcpkit client');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'askName']));
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
      expect(textOf(await client.callTool({ name: 'askName', arguments: {} }))).toBe('hello Ada');

      const modern = await postPerRequest(proxy.url, 'tools/call', { name: 'echo', arguments: { text: 'modern' } });
      expect(modern.status).toBe(200);
      expect(modern.body.result).toMatchObject({
        resultType: 'complete',
        content: [{ type: 'text', text: 'echo: modern' }],
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'sdk-far' } },
      });
    } finally {
      await client.close();
    }
    expect(await proxy.stop()).toBe(0);
    expect(proxy.stderr()).toContain('sdk-far: serving MCP over stdio'); // the child's stderr reaches ours
  });

  it('starts a stdio upstream again when it exits later; meanwhile its lists are empty, not gone', async () => {
    const proxy = await startProxy(['--http', '0', ...FAR_STDIO]);
    const client = await sdkClient(proxy.url);
    try {
      expect(textOf(await client.callTool({ name: 'exit', arguments: {} }))).toBe('bye');
      // Withdrawn: tools/list still answers (the lists are offered from the start).
      await waitFor(async () => (await client.listTools()).tools.length === 0);
      await waitFor(async () => (await client.listTools()).tools.some((t) => t.name === 'echo'), { timeoutMs: 10_000 });
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'again' } }))).toBe('echo: again');
      expect(proxy.stderr()).toContain('disconnected');
    } finally {
      await client.close();
      expect(await proxy.stop()).toBe(0);
    }
  });

  it('serves over stdio for the SDK StdioClientTransport, stdout carrying protocol messages only', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'proxy', '--stdio', '--prefix', 'far', '--name', 'bridge', ...FAR_STDIO],
      stderr: 'pipe',
      cwd: ROOT,
    });
    const errors: Error[] = [];
    const client = new Client({ name: 'sdk-client', version: '1.0.0' });
    client.onerror = (e) => errors.push(e);
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'bridge' });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('far_echo');
      expect(textOf(await client.callTool({ name: 'far_echo', arguments: { text: 'piped' } }))).toBe('echo: piped');
      expect(errors).toEqual([]); // a non-JSON line on stdout would have been reported here
    } finally {
      await client.close();
    }
  });

  it('serves several servers, stdio and HTTP, each under its prefix', async () => {
    const far = await spawnHttpServer(FAR);
    const proxy = await startProxy([
      '--http',
      '0',
      '--upstream',
      `local=stdio:"${process.execPath}" ${FAR} --stdio`,
      '--upstream',
      `remote=${far.url}`,
      '--header',
      'X-Test: 1',
    ]);
    const client = await sdkClient(proxy.url);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'mcpkit-proxy' });
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['local_echo', 'remote_echo']));
      expect(names).not.toContain('echo');
      expect(textOf(await client.callTool({ name: 'local_echo', arguments: { text: 'a' } }))).toBe('echo: a');
      expect(textOf(await client.callTool({ name: 'remote_echo', arguments: { text: 'b' } }))).toBe('echo: b');
    } finally {
      await client.close();
      expect(await proxy.stop()).toBe(0);
      await far.stop();
    }
  });

  it('reaches an HTTP+SSE (2024-11-05) upstream given as sse:<url>/sse', async () => {
    const far = await spawnHttpServer(FAR, { FAR_TRANSPORT: 'sse' });
    const proxy = await startProxy(['--http', '0', '--upstream', `old=sse:${new URL('/sse', far.url).href}`]);
    const client = await sdkClient(proxy.url);
    try {
      expect(proxy.stderr()).toContain(`"old" (sse:${new URL('/sse', far.url).href})`);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['old_echo', 'old_askName']));
      expect(textOf(await client.callTool({ name: 'old_echo', arguments: { text: 'legacy' } }))).toBe('echo: legacy');
      expect(textOf(await client.callTool({ name: 'old_askName', arguments: {} }))).toBe('hello Ada');
    } finally {
      await client.close();
      expect(await proxy.stop()).toBe(0);
      await far.stop();
    }
  });

  it('stops with exit code 1 and one line when an upstream cannot be started, or exits at once', async () => {
    const missing = await mcpkit(['proxy', '--http', '0', '--', join(ROOT, 'no-such-server')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^mcpkit: could not proxy .*no-such-server.*: /m);
    const dies = await mcpkit(['proxy', '--http', '0', '--', process.execPath, '-e', 'process.exit(3)']);
    expect(dies.code).toBe(1);
    expect(dies.stderr).toMatch(/^mcpkit: could not proxy /m);
    expect(missing.stdout + dies.stdout).toBe('');
  });

  it('sends --header to an HTTP upstream, and stops with exit code 1 when it refuses', async () => {
    const seen: (string | undefined)[] = [];
    const refusing = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(403, { 'content-type': 'text/plain' }).end('no');
    });
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/mcp`;
      const run = await mcpkit(['proxy', '--http', '0', '--upstream', url, '--header', 'Authorization: Bearer sesame']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`mcpkit: could not proxy ${url}: `);
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen)).toEqual(new Set(['Bearer sesame']));
    } finally {
      await new Promise((r) => refusing.close(r));
    }
  });

  it('documents itself in --help and refuses usage mistakes with exit code 2', async () => {
    const help = await mcpkit(['proxy', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: mcpkit proxy');
    expect(help.stdout).toContain('--upstream <spec>');
    expect((await mcpkit(['--help'])).stdout).toMatch(/proxy\s+serve MCP servers/);
    const none = await mcpkit(['proxy', '--http', '0']);
    expect(none).toMatchObject({ code: 2, stderr: expect.stringContaining('no server to proxy') });
    const both = await mcpkit(['proxy', '--stdio', '--http', '1', '--', 'x']);
    expect(both).toMatchObject({ code: 2, stderr: expect.stringContaining('exclude each other') });
  });
});
