import type { AddressInfo } from 'node:net';
import express from 'express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod/v4';
import { reportReady } from './ipc';

/**
 * The proxy written by hand with the official SDK 1.x: one Client connected to the far server (FAR, a
 * Streamable HTTP URL) at start, and the SDK's documented stateless server pattern in front whose
 * `far_echo` tool forwards to the far server's `echo`. The same workload as mcpkit's `app.proxy`, minus
 * what the SDK leaves to the author (list mirroring, cancellation, progress, elicitation...).
 */
async function main(): Promise<void> {
  const client = new Client({ name: 'sdk-bench-proxy', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(process.env.FAR!)));
  const app = express();
  app.use(express.json({ limit: '4mb' }));
  app.post('/mcp', async (req, res) => {
    const server = new McpServer({ name: 'sdk-bench-proxy', version: '1.0.0' });
    server.registerTool(
      'far_echo',
      { description: 'Echoes its input (proxied)', inputSchema: { text: z.string() } },
      async (args, extra) =>
        (await client.callTool({ name: 'echo', arguments: args }, undefined, { signal: extra.signal })) as {
          content: { type: 'text'; text: string }[];
        },
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const server = app.listen(0, '127.0.0.1', () => reportReady({ port: (server.address() as AddressInfo).port }));
}

void main();
