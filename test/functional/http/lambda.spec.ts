import { McpApplication } from '../../../src';
import type { LambdaHandler, LambdaHttpEvent } from '../../../src/fetch';
import { ErasModule } from '../../fixtures/eras-tools';
import { initializeBody } from '../../helpers/http-app';
import { envelope, perRequestBody, perRequestHeaders } from '../../helpers/per-request-http';
import { lambdaHandler } from '../../../src/fetch';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
const DOMAIN = 'abcdefghij.lambda-url.eu-west-1.on.aws';

/** A function URL event (payload format 2.0) as Lambda delivers it, for a POST of `body` to `path`. */
function functionUrlEvent(path: string, headers: Record<string, string>, body?: string, base64 = false): LambdaHttpEvent {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path.split('?')[0],
    rawQueryString: path.split('?')[1] ?? '',
    headers: {
      'x-amzn-tls-cipher-suite': 'TLS_AES_128_GCM_SHA256',
      'x-amzn-tls-version': 'TLSv1.3',
      'x-amzn-trace-id': 'Root=1-6745f0a1-0123456789abcdef01234567',
      'x-forwarded-proto': 'https',
      host: DOMAIN,
      'x-forwarded-port': '443',
      'x-forwarded-for': '203.0.113.7',
      'user-agent': 'node',
      ...headers,
    },
    requestContext: {
      accountId: 'anonymous',
      apiId: 'abcdefghij',
      domainName: DOMAIN,
      domainPrefix: 'abcdefghij',
      http: {
        method: headers[':method'] ?? 'POST',
        path: path.split('?')[0],
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: 'node',
      },
      requestId: 'c1a2b3c4-d5e6-7890-abcd-ef0123456789',
      routeKey: '$default',
      stage: '$default',
      time: '26/Nov/2026:14:00:00 +0000',
      timeEpoch: 1795701600000,
    },
    ...(body === undefined ? {} : { body: base64 ? Buffer.from(body).toString('base64') : body, isBase64Encoded: base64 }),
  } as LambdaHttpEvent;
}

/** An API Gateway HTTP API event (payload format 2.0): a named route, a stage, cookies. */
function httpApiEvent(method: string, path: string, headers: Record<string, string>, body?: string): LambdaHttpEvent {
  return {
    version: '2.0',
    routeKey: `ANY ${path}`,
    rawPath: path,
    rawQueryString: '',
    cookies: ['theme=dark', 'lang=fr'],
    headers: { host: 'api.example.com', 'content-length': body === undefined ? undefined : String(Buffer.byteLength(body)), ...headers },
    requestContext: {
      accountId: '123456789012',
      apiId: 'api-id',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '198.51.100.3', userAgent: 'agent' },
      requestId: 'id',
      routeKey: `ANY ${path}`,
      stage: '$default',
      time: '26/Nov/2026:14:00:00 +0000',
      timeEpoch: 1795701600000,
    },
    body,
    isBase64Encoded: false,
  } as LambdaHttpEvent;
}

/** Invoked as the Node.js Lambda runtime invokes an async handler: (event, context), awaiting the result. */
const context = { awsRequestId: 'c1a2b3c4', functionName: 'mcp', getRemainingTimeInMillis: () => 30_000 };

describe('app.lambdaHandler: AWS Lambda HTTP events (payload 2.0) served by the fetch handler', () => {
  let app: McpApplication;
  let handler: LambdaHandler;
  beforeAll(async () => {
    app = await McpApplication.create(ErasModule, { logger: quiet });
    handler = lambdaHandler(app, { sessions: false, allowedHosts: [DOMAIN, 'api.example.com'] });
  });
  afterAll(() => app.close());

  it('answers a 2026-07-28 request from a function URL as JSON', async () => {
    const body = perRequestBody('tools/call', { name: 'echo', arguments: { text: 'héllo' } }, 1);
    const result = await handler(functionUrlEvent('/mcp', perRequestHeaders(body), JSON.stringify(body)), context);
    expect(result).toMatchObject({
      statusCode: 200,
      isBase64Encoded: false,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(JSON.parse(result.body)).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'echo: héllo' }] } });
  });

  it('buffers a streamed (SSE) answer whole: the logs, then the response', async () => {
    const body = perRequestBody(
      'tools/call',
      { name: 'chatty', arguments: {}, _meta: envelope({ 'io.modelcontextprotocol/logLevel': 'info' }) },
      2,
    );
    const result = await handler(functionUrlEvent('/mcp', perRequestHeaders(body), JSON.stringify(body)), context);
    expect(result.headers['content-type']).toBe('text/event-stream');
    const messages = result.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { method?: string; id?: number });
    expect(messages.map((m) => m.method ?? `response ${m.id}`)).toEqual(['notifications/message', 'notifications/message', 'response 2']);
  });

  it('reads a base64-encoded body, and serves 2025-11-25 statelessly from an HTTP API event with cookies', async () => {
    const init = JSON.stringify(initializeBody(3));
    const encoded = await handler(
      functionUrlEvent('/mcp', { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, init, true),
      context,
    );
    expect(JSON.parse(encoded.body)).toMatchObject({ id: 3, result: { protocolVersion: '2025-11-25' } });
    expect(encoded.headers['mcp-session-id']).toBeUndefined();
    const call = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
    const result = await handler(
      httpApiEvent(
        'POST',
        '/mcp',
        { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        call,
      ),
      context,
    );
    expect(JSON.parse(JSON.parse(result.body).result.content[0].text)).toMatchObject({ version: '2025-11-25' });
  });

  it('gives bad input the endpoint answers: 403 for a foreign Host, 413 over the limit, 405, 404', async () => {
    const body = perRequestBody('tools/list', {}, 5);
    const foreign = await handler(
      functionUrlEvent('/mcp', { ...perRequestHeaders(body), host: 'evil.example' }, JSON.stringify(body)),
      context,
    );
    expect(foreign.statusCode).toBe(403);
    expect(JSON.parse(foreign.body).error.message).toBe('Forbidden: Host header not allowed: evil.example');
    const tooLarge = await handler(functionUrlEvent('/mcp', perRequestHeaders(body), 'x'.repeat(5 * 1024 * 1024)), context);
    expect(tooLarge.statusCode).toBe(413);
    const put = await handler(httpApiEvent('PUT', '/mcp', {}, '{}'), context);
    expect({ status: put.statusCode, allow: put.headers.allow }).toEqual({ status: 405, allow: 'GET, POST, DELETE' });
    const missing = await handler(httpApiEvent('GET', '/nowhere', {}), context);
    expect({ status: missing.statusCode, body: missing.body }).toEqual({ status: 404, body: 'Not Found' });
  });
});
