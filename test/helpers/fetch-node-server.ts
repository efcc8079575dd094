import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

type FetchLike = (request: Request, runtime?: unknown) => Promise<Response>;

/**
 * Puts a web-standard fetch handler on a Node HTTP server bound to 127.0.0.1 (port 0 unless given),
 * the way Node-hosted fetch runtimes do: the request body streams in, the response body (an SSE
 * stream included) streams out, and a client that goes away aborts the request's signal and cancels
 * the response body.
 */
export async function serveFetch(handler: FetchLike, port = 0): Promise<{ server: Server; url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => void bridge(handler, req, res));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { server, url, close };
}

async function bridge(handler: FetchLike, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const aborted = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) aborted.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  // The URL's authority is not the Host header's (which may be hostile): the endpoint reads the header.
  const request = new Request(new URL(req.url ?? '/', 'http://127.0.0.1'), {
    method: req.method,
    headers,
    body: hasBody && req.method !== 'GET' && req.method !== 'HEAD' ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    signal: aborted.signal,
    duplex: 'half',
  });
  let response: Response;
  try {
    response = await handler(request, { remoteAddr: { hostname: req.socket.remoteAddress, port: req.socket.remotePort } });
  } catch {
    res.writeHead(500).end();
    return;
  }
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => (out[name] = value));
  res.writeHead(response.status, out);
  if (!response.body) return void res.end();
  res.flushHeaders();
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // the client went away (the reader was cancelled)
  }
  res.end();
}
