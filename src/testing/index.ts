/**
 * `mcpkit/testing`: testing a server and a store. `McpTestClient` over an in-memory transport pair
 * (`app.connectInMemory()`), and `describeTaskStoreContract`, the contract every `TaskStore` passes.
 *
 * @module mcpkit/testing
 */
export { McpTestClient } from './mcp-test-client';
export type { TestClientOptions, ClientRequestHandler } from './mcp-test-client';
export { createInMemoryTransportPair } from '../transports/in-memory.transport';
export type { ClientTransport } from '../transports/in-memory.transport';
export { describeTaskStoreContract } from './task-store.contract';
export type { TestSuiteFunctions, TaskStoreContractOptions } from './task-store.contract';
export { describePolicyStoreContract } from './policy-store.contract';
export type { PolicyStoreContractOptions } from './policy-store.contract';
