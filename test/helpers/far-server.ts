import { join } from 'node:path';
import { injectable } from 'tsyringe';
import { EmptyInput, McpModule, Tool } from '../../src';
import {
  stdioClientTransport,
  streamableHttpClientTransport,
  type McpClientTransport,
  type StreamableHttpClientOptions,
} from '../../src/client';
import { ROOT } from './paths';
import { spawnHttpServer } from './spawn-server';

/** A server built with the official SDK 1.x: stdio with `--stdio`, else Streamable HTTP (or HTTP+SSE with FAR_TRANSPORT=sse). */
export const SDK_FAR_SERVER = join(ROOT, 'test', 'fixtures', 'sdk-far-server.mjs');
/** An mcpkit server that serves only the 2026-07-28 era (compiled: build dist first). */
export const PER_REQUEST_FAR_SERVER = join(ROOT, 'dist', 'test', 'fixtures', 'per-request-far-server.js');

/** A far server opened for a test: the transport that reaches it, and how to stop it. */
export interface OpenedFar {
  transport: McpClientTransport;
  stop: () => Promise<void>;
}

/** A client transport that spawns `script` over stdio (the process ends when the transport closes). */
export function farStdio(script: string, stderr: 'pipe' | 'ignore' = 'pipe'): McpClientTransport {
  return stdioClientTransport({ command: process.execPath, args: [script, '--stdio'], stderr });
}

/** Spawns `script` as an HTTP server and reaches it with mcpkit's Streamable HTTP client transport. */
export async function openFarHttp(script: string, options?: StreamableHttpClientOptions): Promise<OpenedFar> {
  const far = await spawnHttpServer(script);
  return { transport: streamableHttpClientTransport(far.url, options), stop: far.stop };
}

/** The stdio and Streamable HTTP ways to open `script`, as rows for `describe.each`. */
export function farOverBothTransports(script: string): [string, () => Promise<OpenedFar>][] {
  return [
    ['stdio', async () => ({ transport: farStdio(script), stop: async () => {} })],
    ['Streamable HTTP', () => openFarHttp(script)],
  ];
}

@injectable()
class LocalTools {
  @Tool() local(_: EmptyInput) {
    return 'served here';
  }
}

/** A gateway application's module with one tool of its own, `local`, to serve beside what it proxies. */
@McpModule({ server: { name: 'gateway', version: '1.0.0' }, providers: [LocalTools] })
export class GatewayModule {}
