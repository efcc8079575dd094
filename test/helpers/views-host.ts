import { readFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Frame, Page } from 'puppeteer-core';
import { ROOT } from './paths';

const HOST_DIR = join(ROOT, 'test', 'fixtures', 'views-host');

/**
 * The host page of test/fixtures/views-host on 127.0.0.1: index.html, host.js (host.mjs bundled for the
 * browser with the official client and ext-apps' AppBridge), and /mcp proxied to the MCP server, so the
 * page reaches the server on its own origin (no CORS needed).
 */
export async function serveHost(mcpUrl: string): Promise<{ url: string; close: () => Promise<void> }> {
  const bundle = await build({
    entryPoints: [join(HOST_DIR, 'host.mjs')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const files: Record<string, [string, string | Uint8Array]> = {
    '/': ['text/html; charset=utf-8', readFileSync(join(HOST_DIR, 'index.html'), 'utf8')],
    '/host.js': ['text/javascript; charset=utf-8', bundle.outputFiles[0].contents],
  };
  const upstream = new URL(mcpUrl);
  const proxy = (req: IncomingMessage, res: ServerResponse) => {
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: upstream.pathname,
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://host').pathname;
    if (path === '/mcp') return proxy(req, res);
    const file = files[path];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The frame of the view's iframe (sandboxed, so it has an opaque origin; the DevTools protocol still reaches it). */
export async function viewFrame(page: Page): Promise<Frame> {
  const handle = await page.waitForSelector('#views iframe');
  const frame = await handle!.contentFrame();
  if (!frame) throw new Error('the view iframe has no frame');
  return frame;
}
