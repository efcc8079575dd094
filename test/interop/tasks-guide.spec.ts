import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../helpers/cli';
import { codeBlocks } from '../helpers/docs-blocks';
import { ROOT } from '../helpers/paths';

const TSX_CLI = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const DIR = join(ROOT, 'dist', 'tasks-guide');

/**
 * The task tool of docs/guide/tasks.md, and its two clients (the official SDK 1.x, and 2.x with
 * @modelcontextprotocol/ext-tasks), run as the guide writes them: the server under tsx on a free port (its
 * delays shortened), each client against it. What they print is what the guide says they print.
 */
describe('the tasks guide, run', () => {
  let server: ChildProcess;
  let url: string;
  const block = (marker: string) => codeBlocks(join(ROOT, 'docs', 'guide', 'tasks.md')).find((b) => b.code.includes(marker))!.code;

  beforeAll(async () => {
    rmSync(DIR, { recursive: true, force: true });
    mkdirSync(DIR, { recursive: true });
    const paths = { mcpkit: [join(ROOT, 'src', 'index.ts')], 'mcpkit/*': [join(ROOT, 'src', '*', 'index.ts')] };
    const compilerOptions = {
      target: 'ES2022',
      module: 'NodeNext',
      strict: true,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      paths,
    };
    writeFileSync(join(DIR, 'tsconfig.json'), JSON.stringify({ compilerOptions }));
    const listen = 'await app.listen(httpServer({ port: 3000 }));';
    const source = block(listen).replace(/setTimeout\(resolve, 500\)/g, 'setTimeout(resolve, 20)');
    writeFileSync(join(DIR, 'server.mts'), source.replace(listen, "console.log('URL', (await app.listen(httpServer({ port: 0 }))).url);"));
    server = spawn(process.execPath, [TSX_CLI, '--tsconfig', join(DIR, 'tsconfig.json'), join(DIR, 'server.mts')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = /URL (\S+)/.exec(out);
        if (found) resolve(found[1]);
      });
      server.once('exit', (code) => reject(new Error(`the guide's server exited (${code}): ${out}`)));
    });
  }, 120_000);

  afterAll(() => {
    server?.kill();
    rmSync(DIR, { recursive: true, force: true });
  });

  async function runClient(name: string, marker: string): Promise<string> {
    writeFileSync(join(DIR, name), `${block(marker).replace('http://127.0.0.1:3000/mcp', url)}\nawait client.close();\n`);
    const { code, stdout, stderr } = await run(process.execPath, [TSX_CLI, '--tsconfig', join(DIR, 'tsconfig.json'), join(DIR, name)], {
      timeoutMs: 60_000,
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    return stdout;
  }

  it('SDK 1.x: callToolStream prints the task, its statuses, the progress and the result', async () => {
    const lines = (await runClient('sdk1.mts', "'@modelcontextprotocol/sdk/client/index.js'")).trim().split('\n');
    expect(lines[0]).toMatch(/^task [0-9a-f-]{36}$/);
    expect(lines).toEqual(
      expect.arrayContaining(['status working', '1/3 month 1 of 3', '2/3 month 2 of 3', '3/3 month 3 of 3', 'status completed']),
    );
    expect(lines.indexOf('3/3 month 3 of 3')).toBeLessThan(lines.indexOf('status completed'));
    expect(lines.slice(-1)).toEqual(["[ { type: 'text', text: 'Sales report over 3 months' } ]"]);
  }, 90_000);

  it('SDK 2.x with ext-tasks: the call is a task, working then completed, with the result', async () => {
    const out = await runClient('sdk2.mts', "'@modelcontextprotocol/ext-tasks/client'");
    expect(out).toMatch(
      /^status working\n(status working\n)*status completed\ntask \[ \{ type: 'text', text: 'Sales report over 3 months' \} \]\n$/,
    );
  }, 90_000);
});
