import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isInitializeRequest, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';
import { MODE, reportReady, TOOL_COUNT } from './ipc';

const EchoInput = z.object({ text: z.string() });

/** The same tools as the mcpkit bench server, written with the official SDK 2.x (@modelcontextprotocol/server). */
function createServer(): McpServer {
  const server = new McpServer({ name: 'sdk2-bench', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes its input', inputSchema: EchoInput }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  for (let i = 1; i < TOOL_COUNT; i++) {
    server.registerTool(
      `tool_${i}`,
      { description: `Filler tool number ${i}, echoing its input`, inputSchema: EchoInput },
      async ({ text }) => ({
        content: [{ type: 'text', text }],
      }),
    );
  }
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * The SDK's documented pattern with sessions on Node (2025-11-25 era): a transport per session, kept by
 * its id, the server created at initialize.
 */
function sessionsHandler(): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const transports = new Map<string, NodeStreamableHTTPServerTransport>();
  return async (req, res) => {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport && !sessionId && isInitializeRequest(body)) {
      const created = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => void transports.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId) transports.delete(created.sessionId);
      };
      await createServer().connect(created);
      transport = created;
    }
    if (!transport) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null }));
      return;
    }
    await transport.handleRequest(req, res, body);
  };
}

function main(): void {
  if (MODE === 'stdio') {
    // The SDK's stdio entry: one server from the factory per connection, for the era its opening picks.
    serveStdio(createServer);
    return;
  }
  // Stateless: the SDK's web-standard handler (both eras; a 2025-11-25 request gets a fresh server), put
  // on Node by its adapter, as its serving guide shows.
  const handle = MODE === 'stateless' ? toNodeHandler(createMcpHandler(createServer)) : sessionsHandler();
  const server = createHttpServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error(error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.listen(0, '127.0.0.1', () => reportReady({ port: (server.address() as AddressInfo).port }));
}

main();
