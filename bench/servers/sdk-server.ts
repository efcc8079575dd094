import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import * as z from 'zod/v4';
import { MODE, reportReady, TOOL_COUNT, WITH_TASKS } from './ipc';

const taskStore = new InMemoryTaskStore();

/** The same tools as the mcpkit bench server, written with the official SDK. */
function createServer(): McpServer {
  const server = WITH_TASKS
    ? new McpServer(
        { name: 'sdk-bench', version: '1.0.0' },
        { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore, taskMessageQueue: new InMemoryTaskMessageQueue() },
      )
    : new McpServer({ name: 'sdk-bench', version: '1.0.0' });
  // The task workload, in the SDK's documented pattern (examples/server/simpleStreamableHttp).
  if (WITH_TASKS) registerTaskTool(server);
  server.registerTool('echo', { description: 'Echoes its input', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  for (let i = 1; i < TOOL_COUNT; i++) {
    server.registerTool(
      `tool_${i}`,
      { description: `Filler tool number ${i}, echoing its input`, inputSchema: { text: z.string() } },
      async ({ text }) => ({
        content: [{ type: 'text', text }],
      }),
    );
  }
  return server;
}

function registerTaskTool(server: McpServer): void {
  server.experimental.tasks.registerToolTask(
    'work',
    { description: 'A unit of work that runs as a task', inputSchema: { text: z.string() }, execution: { taskSupport: 'optional' } },
    {
      async createTask({ text }, { taskStore: store, taskRequestedTtl }) {
        const task = await store.createTask({ ttl: taskRequestedTtl });
        void (async () => store.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `done ${text}` }] }))();
        return { task };
      },
      async getTask(_args, { taskId, taskStore: store }) {
        return store.getTask(taskId);
      },
      async getTaskResult(_args, { taskId, taskStore: store }) {
        return (await store.getTaskResult(taskId)) as { content: [] };
      },
    },
  );
}

async function main(): Promise<void> {
  if (MODE === 'stdio') {
    await createServer().connect(new StdioServerTransport());
    return;
  }
  const app = express();
  app.use(express.json({ limit: '4mb' }));
  if (MODE === 'stateless') {
    // The SDK's documented stateless pattern: a fresh server and transport per request.
    app.post('/mcp', async (req, res) => {
      const server = createServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    });
  } else {
    // The SDK's documented pattern with sessions.
    const transports: Record<string, StreamableHTTPServerTransport> = {};
    app.post('/mcp', async (req, res) => {
      const sessionId = req.headers['mcp-session-id'] as string | undefined;
      let transport = sessionId ? transports[sessionId] : undefined;
      if (!transport && !sessionId && isInitializeRequest(req.body)) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (id) => void (transports[id] = created),
        });
        created.onclose = () => {
          if (created.sessionId) delete transports[created.sessionId];
        };
        await createServer().connect(created);
        transport = created;
      }
      if (!transport) {
        res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null });
        return;
      }
      await transport.handleRequest(req, res, req.body);
    });
  }
  const server = app.listen(0, '127.0.0.1', () => reportReady({ port: (server.address() as AddressInfo).port }));
}

void main();
