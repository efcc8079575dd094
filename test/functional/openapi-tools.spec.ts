import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpApplication } from '../../src';
import { AppModule } from '../../samples/notes/app.module';
import { loadOpenApiDocument, registerOpenApiTools, type OpenApiDocument } from '../../samples/notes/openapi-tools';
import { registryOf } from '../../src/kernel/mcp-application';

const DOCUMENT = loadOpenApiDocument(join(__dirname, '..', '..', 'samples', 'notes', 'openapi.json'));
const GENERATED = ['defineWord', 'searchWords', 'saveGlossaryTerm', 'deleteGlossaryTerm'];

async function start(options: Parameters<typeof registerOpenApiTools>[2] = {}, document: OpenApiDocument = DOCUMENT) {
  const app = await McpApplication.create(AppModule);
  const names = registerOpenApiTools(app, document, options);
  const client = new Client({ name: 'sdk', version: '1' });
  await client.connect(app.connectInMemory());
  return { app, client, names };
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

/** A real HTTP API on 127.0.0.1 that records what reaches it and answers like the document says. */
interface Seen {
  method: string;
  url: string;
  contentType?: string;
  body: string;
}
async function startApi(): Promise<{ server: Server; baseUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const read = async (req: IncomingMessage) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    return body;
  };
  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await read(req);
    seen.push({ method: req.method!, url: req.url!, contentType: req.headers['content-type'], body });
    const url = new URL(req.url!, 'http://x');
    const json = (status: number, value: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (url.pathname === '/v1/words/slow') return; // never answers
    if (url.pathname === '/v1/words/missing') return json(404, { error: 'no such word' });
    if (req.method === 'GET' && url.pathname.startsWith('/v1/words/')) {
      return json(200, {
        word: decodeURIComponent(url.pathname.slice('/v1/words/'.length)),
        lang: url.searchParams.get('lang') ?? 'en',
        definitions: [{ partOfSpeech: 'noun', text: 'from the API' }],
      });
    }
    if (req.method === 'GET' && url.pathname === '/v1/search')
      return json(200, { words: [`${url.searchParams.get('prefix')}ly`], total: 1 });
    if (req.method === 'PUT' && url.pathname.startsWith('/v1/glossary/')) {
      const given = JSON.parse(body) as { definition: string; tags?: string[] };
      return json(200, {
        term: decodeURIComponent(url.pathname.slice('/v1/glossary/'.length)),
        ...given,
        updatedAt: '2026-01-01T00:00:00Z',
      });
    }
    if (req.method === 'DELETE') return res.writeHead(204).end();
    json(500, { error: 'unexpected' });
  };
  // A fault of the test API itself (a body that is not JSON) drops the connection, so the call fails, and is logged.
  const server = createServer((req, res) => {
    respond(req, res).catch((error: unknown) => {
      console.error('test API:', error);
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`, seen };
}

describe('notes sample: tools generated from an OpenAPI document (official SDK client)', () => {
  it('lists one tool per operation with schemas from the parameters, body and 200 response, next to the decorated tools', async () => {
    const { app, client, names } = await start();
    expect(names).toEqual(GENERATED);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['addNote', 'search', ...GENERATED]));
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.defineWord).toMatchObject({
      title: 'Look up the definitions of a word',
      description: 'Look up the definitions of a word\n\nDefinitions of a word in a dictionary, by part of speech.',
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: 'object',
        properties: {
          word: { type: 'string', minLength: 1, maxLength: 64, description: 'The word to look up' },
          lang: { type: 'string', enum: ['en', 'fr', 'de'], default: 'en', description: 'Dictionary language' },
        },
        required: ['word'],
        additionalProperties: false,
      },
      outputSchema: { type: 'object', required: ['word', 'definitions'] },
    });
    expect(byName.searchWords.inputSchema).toMatchObject({
      required: ['prefix'],
      properties: { limit: { type: 'integer', minimum: 1, maximum: 50 } },
    });
    expect(byName.saveGlossaryTerm).toMatchObject({
      annotations: { idempotentHint: true },
      inputSchema: {
        required: ['term', 'body'],
        properties: { term: { type: 'string' }, body: { type: 'object', required: ['definition'], additionalProperties: false } },
      },
    });
    expect(byName.deleteGlossaryTerm.annotations).toEqual({ idempotentHint: true });
    await app.close();
  });

  it('mock mode (no baseUrl): a call answers with the example of the success response as structuredContent', async () => {
    const { app, client } = await start();
    const result = await client.callTool({ name: 'defineWord', arguments: { word: 'note' } });
    const example = (DOCUMENT.paths['/words/{word}'].get.responses['200'].content!['application/json'] as { example: unknown }).example;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual(example);
    expect(JSON.parse(textOf(result))).toEqual(example);
    await app.close();
  });

  it('answers bad arguments with an isError result naming each field, without calling the API', async () => {
    const { server, baseUrl, seen } = await startApi();
    const { app, client } = await start({ baseUrl });
    const bad = await client.callTool({ name: 'searchWords', arguments: { limit: 500 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('prefix: is required (required)');
    expect(textOf(bad)).toContain('limit: must be <= 50');
    const badBody = await client.callTool({ name: 'saveGlossaryTerm', arguments: { term: 'x', body: { tags: 'no' } } });
    expect(textOf(badBody)).toContain('body.definition: is required (required)');
    expect(textOf(badBody)).toContain('body.tags: must be array');
    expect(seen).toEqual([]);
    await app.close();
    server.close();
  });

  it('with a baseUrl, performs the HTTP request: method, encoded path, query string and JSON body reach the API', async () => {
    const { server, baseUrl, seen } = await startApi();
    const { app, client } = await start({ baseUrl });

    const defined = await client.callTool({ name: 'defineWord', arguments: { word: 'to do/list', lang: 'fr' } });
    expect(defined.structuredContent).toEqual({
      word: 'to do/list',
      lang: 'fr',
      definitions: [{ partOfSpeech: 'noun', text: 'from the API' }],
    });
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/v1/words/to%20do%2Flist?lang=fr', body: '' });

    const found = await client.callTool({ name: 'searchWords', arguments: { prefix: 'quick', limit: 5 } });
    expect(found.structuredContent).toEqual({ words: ['quickly'], total: 1 });
    expect(seen[1]).toMatchObject({ method: 'GET', url: '/v1/search?prefix=quick&limit=5' });

    const saved = await client.callTool({
      name: 'saveGlossaryTerm',
      arguments: { term: 'MCP', body: { definition: 'Model Context Protocol', tags: ['a'] } },
    });
    expect(saved.structuredContent).toEqual({
      term: 'MCP',
      definition: 'Model Context Protocol',
      tags: ['a'],
      updatedAt: '2026-01-01T00:00:00Z',
    });
    expect(seen[2]).toMatchObject({ method: 'PUT', url: '/v1/glossary/MCP', contentType: 'application/json' });
    expect(JSON.parse(seen[2].body)).toEqual({ definition: 'Model Context Protocol', tags: ['a'] });

    // 204 No Content: a success without structured data.
    const deleted = await client.callTool({ name: 'deleteGlossaryTerm', arguments: { term: 'MCP' } });
    expect(deleted).toMatchObject({ content: [{ type: 'text', text: 'Done (no content)' }] });
    expect(deleted.isError).toBeUndefined();
    expect(seen[3]).toMatchObject({ method: 'DELETE', url: '/v1/glossary/MCP' });
    await app.close();
    server.close();
  });

  it('maps a non-2xx answer to an error result with the status, and a request that never ends to a timeout error', async () => {
    const { server, baseUrl } = await startApi();
    const { app, client } = await start({ baseUrl, timeoutMs: 200 });
    const missing = await client.callTool({ name: 'defineWord', arguments: { word: 'missing' } });
    expect(missing).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'GET /words/{word} failed with HTTP 404: {"error":"no such word"}' }],
    });
    const slow = await client.callTool({ name: 'defineWord', arguments: { word: 'slow' } });
    expect(slow).toMatchObject({ isError: true, content: [{ type: 'text', text: 'GET /words/{word}: timed out after 200 ms' }] });
    // The server keeps serving.
    expect((await client.callTool({ name: 'defineWord', arguments: { word: 'ok' } })).isError).toBeUndefined();
    await app.close();
    server.closeAllConnections();
    server.close();
  });

  it('uses the fetch it is given, and sanitizes operationIds into tool names', async () => {
    const urls: string[] = [];
    const fakeFetch = (async (url: URL) => {
      urls.push(url.href);
      return new Response(JSON.stringify([1, 2]), { status: 200 });
    }) as unknown as typeof fetch;
    const document: OpenApiDocument = {
      openapi: '3.1.0',
      paths: {
        '/numbers': {
          get: {
            operationId: 'list numbers:all',
            responses: { '200': { content: { 'application/json': { schema: { type: 'array' } } } } },
          },
        },
      },
    };
    const { app, client, names } = await start({ baseUrl: 'https://api.test', fetch: fakeFetch }, document);
    expect(names).toEqual(['list_numbers_all']);
    const result = await client.callTool({ name: 'list_numbers_all', arguments: {} });
    // An array response (no output schema): its JSON is the text.
    expect(result).toMatchObject({ content: [{ type: 'text', text: '[1,2]' }] });
    expect(result.structuredContent).toBeUndefined();
    expect(urls).toEqual(['https://api.test/numbers']);
    await app.close();
  });

  it('refuses an unusable document at registration with a clear error, registering nothing', async () => {
    const app = await McpApplication.create(AppModule);
    const before = registryOf(app).toolDefinitions().length;
    const op = (extra: object) => ({
      operationId: 'op',
      responses: { '200': { content: { 'application/json': { schema: { type: 'object' }, example: {} } } } },
      ...extra,
    });
    const cases: [unknown, RegExp][] = [
      [{ swagger: '2.0', paths: {} }, /expected an OpenAPI 3\.x document/],
      [{ openapi: '3.1.0' }, /has no "paths"/],
      [{ openapi: '3.1.0', paths: { '/a': { get: { responses: {} } } } }, /GET \/a: every operation needs an operationId/],
      [
        { openapi: '3.1.0', paths: { '/a': { get: op({ parameters: [{ name: 'x-key', in: 'header' }] }) } } },
        /parameter "x-key" is in header; only path and query/,
      ],
      [{ openapi: '3.1.0', paths: { '/a/{id}': { get: op({}) } } }, /the path variable \{id\} has no parameter/],
      [
        {
          openapi: '3.1.0',
          paths: { '/a': { get: op({ parameters: [{ name: 'q', in: 'query', schema: { $ref: '#/components/schemas/Q' } }] }) } },
        },
        /"\$ref" is not supported/,
      ],
      [
        {
          openapi: '3.1.0',
          paths: {
            '/a': {
              get: { operationId: 'noExample', responses: { '200': { content: { 'application/json': { schema: { type: 'object' } } } } } },
            },
          },
        },
        /mock mode \(no baseUrl\) needs an example/,
      ],
      [{ openapi: '3.1.0', paths: { '/a': { get: op({}) }, '/b': { get: op({}) } } }, /two operations become the tool "op"/],
    ];
    for (const [document, message] of cases) expect(() => registerOpenApiTools(app, document as OpenApiDocument)).toThrow(message);
    expect(registryOf(app).toolDefinitions()).toHaveLength(before);
    await app.close();
  });
});
