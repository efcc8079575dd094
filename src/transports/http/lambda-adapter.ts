import type { FetchHandler, LambdaHandler, LambdaHttpEvent, LambdaHttpResult } from './http-handler.types';

const TEXT = /^(text\/|application\/(json|javascript|xml)|[^;]*\+json)/i;

/**
 * AWS Lambda's front door: an HTTP payload 2.0 event (API Gateway HTTP API, function URL) becomes a
 * `Request` for the fetch handler, and its `Response` the function's result. The answer is buffered,
 * as Lambda returns a result once: an SSE answer (a stateless request's stream ends with its
 * response) arrives whole.
 */
export function lambdaAdapter(fetchHandler: FetchHandler): LambdaHandler {
  return async (event) => {
    const request = toRequest(event);
    const response = await fetchHandler(request, { remoteAddr: { hostname: event.requestContext.http.sourceIp } });
    return toResult(response);
  };
}

function toRequest(event: LambdaHttpEvent): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  if (event.cookies?.length) headers.set('cookie', event.cookies.join('; '));
  const { method } = event.requestContext.http;
  const host = headers.get('host') || event.requestContext.domainName || 'localhost';
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  const url = new URL(`${event.rawPath}${query}`, `https://${host}`);
  const hasBody = event.body !== undefined && method !== 'GET' && method !== 'HEAD';
  const body = hasBody ? (event.isBase64Encoded ? base64Bytes(event.body) : event.body) : undefined;
  // Lambda gives the body whole, with no Content-Length when the client streamed it.
  if (hasBody && !headers.has('content-length'))
    headers.set('content-length', String(body instanceof Uint8Array ? body.byteLength : utf8Length(body!)));
  return new Request(url, { method, headers, body });
}

async function toResult(response: Response): Promise<LambdaHttpResult> {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') cookies.push(value);
    else headers[name] = value;
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = TEXT.test(headers['content-type'] ?? 'text/plain');
  return {
    statusCode: response.status,
    headers,
    ...(cookies.length > 0 ? { cookies } : {}),
    body: text ? new TextDecoder().decode(bytes) : bytesBase64(bytes),
    isBase64Encoded: !text,
  };
}

function base64Bytes(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function bytesBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}
