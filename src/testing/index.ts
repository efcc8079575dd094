export { McpTestClient } from './mcp-test-client';
export type { TestClientOptions, ClientRequestHandler } from './mcp-test-client';
export { createInMemoryTransportPair } from '../transports/in-memory.transport';
export type { ClientTransport } from '../transports/in-memory.transport';
export { describeTaskStoreContract } from './task-store.contract';
export type { TestSuiteFunctions, TaskStoreContractOptions } from './task-store.contract';
