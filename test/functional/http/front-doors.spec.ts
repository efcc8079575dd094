import { request } from 'node:http';
import { McpApplication } from '../../../src';
import type { HttpOptions } from '../../../src/http';
import { StaticTokenVerifier } from '../../../src/auth';
import { ErasModule } from '../../fixtures/eras-tools';
import { serveFetch } from '../../helpers/fetch-node-server';
import { initializeBody } from '../../helpers/http-app';
import { envelope, perRequestBody, perRequestHeaders } from '../../helpers/per-request-http';
import { fetchHandler } from '../../../src/fetch';
import { httpServer } from '../../../src/http';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
const ACCEPT = 'application/json, text/event-stream';
const JSON_POST = { 'content-type': 'application/json', accept: ACCEPT };
const HANDSHAKE = { ...JSON_POST, 'mcp-protocol-version': '2025-11-25' };
const RESOURCE = 'http://127.0.0.1/mcp';

interface Case {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** What a client can see of an answer: its status, the headers that carry meaning, and its body. */
interface Seen {
  status: number;
  headers: Record<string, string | undefined>;
  body: unknown;
}

const COMPARED_HEADERS = [
  'content-type',
  'allow',
  'www-authenticate',
  'retry-after',
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'cache-control',
  'vary',
];

/** Sends exactly these headers (Host included when given) over a fresh connection, and reads the whole answer. */
function send(base: string, c: Case): Promise<Seen> {
  const url = new URL(c.path, base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: c.method, headers: c.headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const headers = Object.fromEntries(COMPARED_HEADERS.map((h) => [h, res.headers[h] as string | undefined]));
          let body: unknown = text;
          if ((headers['content-type'] ?? '').includes('json')) body = JSON.parse(text);
          // The session id is random: only whether one was issued is compared.
          headers['mcp-session-id'] = res.headers['mcp-session-id'] === undefined ? undefined : 'issued';
          resolve({ status: res.statusCode!, headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end(c.body);
  });
}

async function frontDoors(options: HttpOptions) {
  const app = await McpApplication.create(ErasModule, { logger: quiet });
  const http = await app.listen(httpServer({ port: 0, ...options }));
  const fetched = await serveFetch(fetchHandler(app, options));
  return {
    koa: new URL(http.url).origin,
    fetch: fetched.url,
    close: async () => {
      await fetched.close();
      await app.close();
    },
  };
}

const modern = (method: string, params: Record<string, unknown> = {}, overrides: Record<string, string | undefined> = {}): Case => {
  const body = perRequestBody(method, params, 7);
  return { method: 'POST', path: '/mcp', headers: perRequestHeaders(body, overrides), body: JSON.stringify(body) };
};
const post = (body: unknown, headers: Record<string, string> = HANDSHAKE): Case => ({
  method: 'POST',
  path: '/mcp',
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const toolsList = { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} };

/** Hostile and unusual requests, each answered by the endpoint's rules rather than by the front door. */
const HOSTILE: [string, Case][] = [
  ['no Accept', post(toolsList, { 'content-type': 'application/json' })],
  ['Accept without text/event-stream', post(toolsList, { 'content-type': 'application/json', accept: 'application/json' })],
  ['a text/plain body', post(toolsList, { 'content-type': 'text/plain', accept: ACCEPT })],
  ['a JSON body with a charset', post(initializeBody(), { 'content-type': 'application/json; charset=utf-8', accept: ACCEPT })],
  ['no body', { method: 'POST', path: '/mcp', headers: JSON_POST }],
  ['an empty body', post('', { ...JSON_POST, 'content-length': '0' })],
  ['invalid JSON', post('{"jsonrpc":')],
  ['a byte-order mark before the JSON', post(`\ufeff${JSON.stringify(toolsList)}`)],
  ['a batch', post([toolsList])],
  ['JSON that is no JSON-RPC message', post({ hello: 'world' })],
  ['a body over the limit', post({ ...toolsList, params: { pad: 'x'.repeat(3_000) } })],
  ['a Content-Length over the limit', { method: 'POST', path: '/mcp', headers: { ...HANDSHAKE, 'content-length': '999999' }, body: '' }],
  ['a foreign Host', post(toolsList, { ...HANDSHAKE, host: 'evil.example' })],
  ['a foreign Origin', post(toolsList, { ...HANDSHAKE, origin: 'http://evil.example' })],
  ['a request without a session', post(toolsList)],
  ['a request for an unknown session', post(toolsList, { ...HANDSHAKE, 'mcp-session-id': 'nope' })],
  ['a notification without a session', post({ jsonrpc: '2.0', method: 'notifications/initialized' })],
  [
    'an unsupported MCP-Protocol-Version on GET',
    { method: 'GET', path: '/mcp', headers: { accept: 'text/event-stream', 'mcp-protocol-version': '1999-01-01' } },
  ],
  ['GET without a session', { method: 'GET', path: '/mcp', headers: { accept: 'text/event-stream' } }],
  ['GET not accepting SSE', { method: 'GET', path: '/mcp', headers: { accept: 'application/json' } }],
  ['DELETE without a session', { method: 'DELETE', path: '/mcp' }],
  ['DELETE of an unknown session', { method: 'DELETE', path: '/mcp', headers: { 'mcp-session-id': 'nope' } }],
  ['PUT', { method: 'PUT', path: '/mcp', headers: JSON_POST, body: '{}' }],
  ['PATCH on an upper-case path with a trailing slash', { method: 'PATCH', path: '/MCP/', headers: JSON_POST, body: '{}' }],
  ['OPTIONS (preflight)', { method: 'OPTIONS', path: '/mcp', headers: { origin: 'http://localhost:6274' } }],
  ['an unknown path', { method: 'GET', path: '/nope' }],
  ['a double trailing slash', { ...post(toolsList), path: '/mcp//' }],
  ['PUT on the health path', { method: 'PUT', path: '/health' }],
  ['the health path from a foreign Host', { method: 'GET', path: '/health', headers: { host: 'evil.example' } }],
  ['the readiness path from a foreign Host', { method: 'GET', path: '/ready', headers: { host: 'evil.example' } }],
  ['the readiness path', { method: 'GET', path: '/ready' }],
  ['HTTP+SSE: a message without sessionId', { method: 'POST', path: '/messages', headers: JSON_POST, body: '{}' }],
  ['HTTP+SSE: a message for an unknown session', { method: 'POST', path: '/messages?sessionId=nope', headers: JSON_POST, body: '{}' }],
  ['HTTP+SSE: a repeated sessionId', { method: 'POST', path: '/messages?sessionId=a&sessionId=b', headers: JSON_POST, body: '{}' }],
  [
    'HTTP+SSE: a text/plain message',
    { method: 'POST', path: '/messages?sessionId=a', headers: { 'content-type': 'text/plain' }, body: 'x' },
  ],
  ['2026-07-28: an unknown method', modern('nope/nothing')],
  ['2026-07-28: a missing Mcp-Method header', modern('tools/list', {}, { 'mcp-method': undefined })],
  ['2026-07-28: an Mcp-Method that does not match', modern('tools/list', {}, { 'mcp-method': 'prompts/list' })],
  [
    '2026-07-28: an Mcp-Name that does not match',
    modern('tools/call', { name: 'echo', arguments: { text: 'a' } }, { 'mcp-name': 'other' }),
  ],
  ['2026-07-28: no _meta envelope', modern('tools/list', { _meta: undefined })],
  ['2026-07-28: an unsupported version header', modern('tools/list', {}, { 'mcp-protocol-version': '2099-01-01' })],
  ['2026-07-28: a tool that fails', modern('tools/call', { name: 'fail', arguments: {} })],
  ['2026-07-28: invalid tool arguments', modern('tools/call', { name: 'add', arguments: { a: 'x' } })],
  ['2026-07-28: an unknown tool', modern('tools/call', { name: 'nope', arguments: {} })],
  [
    '2026-07-28: a request whose answer streams (SSE)',
    modern('tools/call', { name: 'chatty', arguments: {}, _meta: envelope({ 'io.modelcontextprotocol/logLevel': 'debug' }) }),
  ],
  ['2026-07-28: a good request', modern('tools/call', { name: 'echo', arguments: { text: 'héllo' } })],
  ['2025-11-25: initialize', post(initializeBody())],
];

const AUTH_OPTIONS: HttpOptions = {
  auth: {
    authorizationServers: ['https://issuer.example'],
    resource: RESOURCE,
    scopesSupported: ['mcp'],
    verifier: new StaticTokenVerifier({ good: { subject: 'alice', scopes: ['mcp'] } }),
  },
};

const withToken = (c: Case, authorization: string): Case => ({ ...c, headers: { ...c.headers, authorization } });

const AUTH: [string, Case][] = [
  ['no token', modern('tools/list')],
  ['an unknown token', withToken(modern('tools/list'), 'Bearer nope')],
  ['another scheme', withToken(modern('tools/list'), 'Basic dXNlcjpwYXNz')],
  ['a token with characters RFC 6750 forbids', withToken(modern('tools/list'), 'Bearer a b"c')],
  ['a good token', withToken(modern('tools/call', { name: 'whoami', arguments: {} }), 'Bearer good')],
  ['no token on GET', { method: 'GET', path: '/mcp', headers: { accept: 'text/event-stream' } }],
  ['the resource metadata', { method: 'GET', path: '/.well-known/oauth-protected-resource/mcp' }],
  ['the resource metadata at the root', { method: 'GET', path: '/.well-known/oauth-protected-resource' }],
  ['a metadata preflight', { method: 'OPTIONS', path: '/.well-known/oauth-protected-resource/mcp' }],
  [
    'the resource metadata from a foreign Host',
    { method: 'GET', path: '/.well-known/oauth-protected-resource/mcp', headers: { host: 'evil.example' } },
  ],
];

const CORS: [string, Case][] = [
  ['a preflight from an allowed origin', { method: 'OPTIONS', path: '/mcp', headers: { origin: 'http://localhost:6274' } }],
  ['a request from an allowed origin', post(toolsList, { ...HANDSHAKE, origin: 'http://localhost:6274' })],
  ['a request from another origin', post(toolsList, { ...HANDSHAKE, origin: 'http://localhost:9999' })],
];

/**
 * One table of hostile requests against both front doors of one application, the Koa server and
 * the fetch handler (on a Node server): every answer must be the same, since both run McpEndpoint.
 */
describe.each([
  ['defaults (both eras, sessions, HTTP+SSE)', { maxBodyBytes: 2_000, sse2024: {} }, HOSTILE],
  ['sessions off', { sessions: false, maxBodyBytes: 2_000 }, HOSTILE],
  ['OAuth', AUTH_OPTIONS, AUTH],
  ['CORS', { cors: { origins: ['http://localhost:6274'] } }, CORS],
])('Koa and the fetch handler answer alike: %s', (_label, options, table) => {
  let doors: Awaited<ReturnType<typeof frontDoors>>;
  beforeAll(async () => (doors = await frontDoors(options)));
  afterAll(() => doors.close());

  it.each(table)('%s', async (_name, c) => {
    const [koa, fetched] = await Promise.all([send(doors.koa, c), send(doors.fetch, c)]);
    expect(fetched).toEqual(koa);
    if (_name.includes('(SSE)')) expect(koa.headers['content-type']).toBe('text/event-stream');
  });
});
