import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../mcp/json-rpc';
import { isRequest, isResponse } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import { LATEST_PROTOCOL_VERSION, type ClientCapabilities } from '../mcp/mcp-types';
import type { ClientTransport, WireMessage } from '../transports/in-memory.transport';

/** Answers a request the server sends to the client (sampling, elicitation, roots): with its result, or a promise of it. */
export type ClientRequestHandler = (params: Record<string, unknown>) => unknown;

export interface TestClientOptions {
  capabilities?: ClientCapabilities;
  protocolVersion?: string;
  /** Handlers for server -> client requests, by method. */
  handlers?: Record<string, ClientRequestHandler>;
}

/**
 * A small MCP client for tests: sends requests and awaits their results, records every
 * notification, and answers server requests with the handlers it was given.
 */
export class McpTestClient {
  readonly notifications: JsonRpcNotification[] = [];
  /** Server -> client requests received, in order. */
  readonly serverRequests: JsonRpcRequest[] = [];
  /** Every response received, in order, including several for one request (streamed task results). */
  readonly responses: JsonRpcResponse[] = [];
  initializeResult: Record<string, unknown> | undefined;
  private nextId = 0;
  private readonly pending = new Map<RequestId, { resolve(v: unknown): void; reject(e: unknown): void }>();
  private readonly waiters: { predicate: (n: JsonRpcNotification) => boolean; resolve(n: JsonRpcNotification): void }[] = [];
  private readonly responseWaiters: { predicate: (r: JsonRpcResponse) => boolean; resolve(r: JsonRpcResponse): void }[] = [];

  constructor(
    private readonly transport: ClientTransport,
    private readonly options: TestClientOptions = {},
  ) {
    transport.onmessage = (message) => this.onMessage(message as unknown as JsonRpcMessage);
    transport.onclose = () => {
      for (const p of this.pending.values()) p.reject(new Error('Connection closed'));
      this.pending.clear();
    };
  }

  /** Starts the transport and performs the initialize handshake. */
  static async connect(transport: ClientTransport, options: TestClientOptions = {}): Promise<McpTestClient> {
    const client = new McpTestClient(transport, options);
    await transport.start();
    client.initializeResult = (await client.request('initialize', {
      protocolVersion: options.protocolVersion ?? LATEST_PROTOCOL_VERSION,
      capabilities: options.capabilities ?? {},
      clientInfo: { name: 'mcpkit-test-client', version: '0.0.0' },
    })) as Record<string, unknown>;
    await client.notify('notifications/initialized');
    return client;
  }

  /** Sends a request; resolves with its result or rejects with an `McpError`. */
  request(method: string, params?: Record<string, unknown>, id: RequestId = ++this.nextId): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const message: JsonRpcRequest = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
      this.transport.send(message as unknown as WireMessage).catch(reject);
    });
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.transport.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Resolves with the first notification (already received or still to come) that matches. */
  waitForNotification(predicate: (n: JsonRpcNotification) => boolean): Promise<JsonRpcNotification> {
    const seen = this.notifications.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ predicate, resolve }));
  }

  /** Resolves with the first response (already received or still to come) that matches. */
  waitForResponse(predicate: (r: JsonRpcResponse) => boolean): Promise<JsonRpcResponse> {
    const seen = this.responses.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.responseWaiters.push({ predicate, resolve }));
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private onMessage(message: JsonRpcMessage): void {
    if (isResponse(message)) {
      this.responses.push(message);
      for (const w of [...this.responseWaiters]) {
        if (w.predicate(message)) {
          this.responseWaiters.splice(this.responseWaiters.indexOf(w), 1);
          w.resolve(message);
        }
      }
      const pending = message.id === null ? undefined : this.pending.get(message.id);
      if (!pending) return;
      this.pending.delete(message.id as RequestId);
      if ('error' in message) pending.reject(new McpError(message.error.code, message.error.message, message.error.data));
      else pending.resolve(message.result);
    } else if (isRequest(message)) {
      this.serverRequests.push(message);
      // A transport that cannot send the answer is closed: nothing is left to tell.
      this.answer(message).catch(() => undefined);
    } else {
      this.notifications.push(message);
      for (const w of [...this.waiters]) {
        if (w.predicate(message)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(message);
        }
      }
    }
  }

  private async answer(request: JsonRpcRequest): Promise<void> {
    const handler = this.options.handlers?.[request.method];
    if (!handler) {
      await this.transport.send({
        jsonrpc: '2.0',
        id: request.id,
        error: { code: -32601, message: `Method not found: ${request.method}` },
      });
      return;
    }
    try {
      await this.transport.send({ jsonrpc: '2.0', id: request.id, result: await handler(request.params ?? {}) });
    } catch (error) {
      await this.transport.send({ jsonrpc: '2.0', id: request.id, error: { code: -32603, message: (error as Error).message } });
    }
  }
}
