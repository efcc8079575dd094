import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SAMPLE_MAIN } from '../helpers/paths';
import { connectSdkOverStdio } from '../helpers/sdk-stdio';
import { spawnHttpServer } from '../helpers/spawn-server';

const GENERATED = ['defineWord', 'searchWords', 'saveGlossaryTerm', 'deleteGlossaryTerm'];

/** The built notes sample registers tools from samples/notes/openapi.json at startup; the official SDK client uses them. */
describe('notes sample: tools generated from openapi.json (built process, official SDK client)', () => {
  it('mock mode over stdio: the generated tools are listed after the decorated ones and answer with the examples', async () => {
    const { client } = await connectSdkOverStdio(SAMPLE_MAIN, ['--stdio']);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names.slice(-GENERATED.length)).toEqual(GENERATED);
      expect(names).toEqual(expect.arrayContaining(['addNote', 'search', 'togglePin']));
      expect(tools.find((t) => t.name === 'saveGlossaryTerm')).toMatchObject({
        annotations: { idempotentHint: true },
        inputSchema: { type: 'object', required: ['term', 'body'], properties: { body: { type: 'object', required: ['definition'] } } },
        outputSchema: { type: 'object', required: ['term', 'definition', 'updatedAt'] },
      });
      const result = await client.callTool({ name: 'searchWords', arguments: { prefix: 'no' } });
      expect(result.structuredContent).toEqual({ words: ['notable', 'notation', 'note', 'notebook'], total: 4 });
      const bad = await client.callTool({ name: 'defineWord', arguments: { lang: 'xx' } });
      expect(bad.isError).toBe(true);
      expect((bad.content as { text: string }[])[0].text).toMatch(
        /word: is required \(required\)[\s\S]*lang: must be equal to one of the allowed values/,
      );
    } finally {
      await client.close();
    }
  });

  describe('with NOTES_API_BASE_URL over Streamable HTTP', () => {
    let api: Server;
    const seen: string[] = [];
    let server: Awaited<ReturnType<typeof spawnHttpServer>>;
    let client: Client;

    beforeAll(async () => {
      api = createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`);
        if (req.url?.startsWith('/api/words/zzz'))
          return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"unknown word"}');
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ word: 'café', definitions: [{ partOfSpeech: 'noun', text: 'a small restaurant' }] }));
      });
      await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
      server = await spawnHttpServer(SAMPLE_MAIN, { NOTES_API_BASE_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}/api` });
      client = new Client({ name: 'openapi-interop', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    });
    afterAll(async () => {
      await client?.close();
      await server?.stop();
      api?.close();
    });

    it('a call becomes the HTTP request the operation describes, and its JSON the structured result', async () => {
      const result = await client.callTool({ name: 'defineWord', arguments: { word: 'café', lang: 'fr' } });
      expect(result.structuredContent).toEqual({ word: 'café', definitions: [{ partOfSpeech: 'noun', text: 'a small restaurant' }] });
      expect(seen).toEqual(['GET /api/words/caf%C3%A9?lang=fr']);
    });

    it('a 404 from the API is an error result naming the status; the server keeps serving', async () => {
      const result = await client.callTool({ name: 'defineWord', arguments: { word: 'zzz' } });
      expect(result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'GET /words/{word} failed with HTTP 404: {"error":"unknown word"}' }],
      });
      expect((await client.callTool({ name: 'count', arguments: {} })).isError).toBeFalsy();
    });
  });
});
