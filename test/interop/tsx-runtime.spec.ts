import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ROOT } from '../helpers/paths';
import { connectSdkOverStdio } from '../helpers/sdk-stdio';

const TSX_CLI = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'tsx-server.ts');

/**
 * The fixture's TypeScript source runs under tsx (esbuild: decorators, no design:* metadata), and the
 * official SDK client drives it over stdio: the explicit alternatives to metadata work end to end.
 */
describe('a server run by tsx, without decorator metadata', () => {
  let client: Client;
  let stderr: () => string;

  beforeAll(async () => {
    ({ client, stderr } = await connectSdkOverStdio(TSX_CLI, [FIXTURE]));
  }, 60_000);
  afterAll(() => client?.close());

  it('really has no design-time types', async () => {
    expect(await client.callTool({ name: 'designTypes', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'none' }] });
  });

  it('calls a tool whose input and output classes are given with `input` / `output`', async () => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'greet')).toMatchObject({
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1, maxLength: 40, description: 'Who to greet' } },
        required: ['name'],
      },
      outputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    });
    expect(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).toMatchObject({
      structuredContent: { text: 'Hello, Ada!' },
    });
    const invalid = await client.callTool({ name: 'greet', arguments: { name: '' } });
    expect(invalid).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('name') }] });
  });

  it('calls a context-only tool whose service came through @inject constructor injection', async () => {
    expect(await client.callTool({ name: 'time', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: '12:00 (context)' }] });
  });

  it('converts and validates an array of nested DTOs given with @Type', async () => {
    const ok = await client.callTool({
      name: 'order',
      arguments: {
        lines: [
          { sku: 'a', qty: 2 },
          { sku: 'b', qty: 3 },
        ],
      },
    });
    expect(ok).toMatchObject({ content: [{ type: 'text', text: '2 lines, 5 items, true' }] });
    expect(await client.callTool({ name: 'order', arguments: { lines: [{ sku: 'a', qty: 0 }] } })).toMatchObject({ isError: true });
  });

  it('reads a template resource whose variables class is given with `input`', async () => {
    expect(await client.readResource({ uri: 'users://u2' })).toEqual({
      contents: [{ uri: 'users://u2', mimeType: 'text/plain', text: 'u2 is Grace' }],
    });
    await expect(client.readResource({ uri: 'users://x' })).rejects.toMatchObject({ code: -32602 });
  });

  it('gets a prompt whose arguments class is given with `input`, and completes its argument', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.find((p) => p.name === 'write')?.arguments).toEqual([
      { name: 'topic', description: 'What to write about', required: true },
      { name: 'length', required: false },
    ]);
    expect(await client.getPrompt({ name: 'write', arguments: { topic: 'tides', length: 'long' } })).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'Write a long text about tides.' } }],
    });
    await expect(client.getPrompt({ name: 'write', arguments: { topic: 'tides', length: 'epic' } })).rejects.toMatchObject({
      code: -32602,
    });
    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'write' }, argument: { name: 'topic', value: 't' } });
    expect(completion.completion.values).toEqual(['tides', 'tea', 'trains']);
    expect(stderr()).not.toMatch(/Error/);
  });
});
