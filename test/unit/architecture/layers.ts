/**
 * The layers of src/, bottom to top: the one place they are written down (CONTRIBUTING.md lists them for
 * readers; test/unit/architecture/architecture.spec.ts checks the imports against this list). A file may
 * import only from its own layer or a layer below it, type-only imports included. A path is a folder (ending
 * in `/`) or a file; a file belongs to the layer of the longest path that holds it.
 */
export interface Layer {
  readonly name: string;
  /** What lives there, for a reader. */
  readonly holds: string;
  readonly paths: readonly string[];
}

export const LAYERS: readonly Layer[] = [
  { name: 'mcp', holds: 'the MCP vocabulary: wire types, JSON-RPC, eras, extensions, protocol errors', paths: ['src/mcp/'] },
  { name: 'errors', holds: 'the named definition errors thrown at bootstrap', paths: ['src/errors/'] },
  { name: 'context', holds: 'the handler contract: McpContext and what a handler is handed', paths: ['src/context/'] },
  {
    name: 'contracts',
    holds: 'guards, middleware, cache hints, call policies and their store: the contracts users implement',
    paths: ['src/contracts/'],
  },
  { name: 'content', holds: 'content helpers and ToolError, for handlers to build results', paths: ['src/content/'] },
  { name: 'views', holds: 'the types and records of views (UI resources of tools)', paths: ['src/views/'] },
  { name: 'metadata', holds: 'the records the decorators write, keyed by class', paths: ['src/metadata/'] },
  { name: 'schema', holds: 'JSON Schema from class-validator metadata, elicitation schemas, Mcp-Param headers', paths: ['src/schema/'] },
  { name: 'validation', holds: 'checking untrusted input: class-validator inputs and JSON Schemas (Ajv)', paths: ['src/validation/'] },
  {
    name: 'decorators',
    holds: '@Tool, @Resource, @Prompt, @Complete, @Field and the rest: they only record',
    paths: ['src/decorators/'],
  },
  { name: 'registry', holds: 'the pure builder: records and modules to a frozen registry of descriptors', paths: ['src/registry/'] },
  { name: 'search', holds: 'ranking tools against a query for search mode: BM25 and regular expressions', paths: ['src/search/'] },
  { name: 'observability', holds: 'telemetry (spans, metrics, trace context) and the log context', paths: ['src/observability/'] },
  { name: 'http', holds: 'HTTP helpers shared by auth and transports (reading a body)', paths: ['src/http/'] },
  { name: 'auth', holds: 'who is calling: principals, token verifiers, the OAuth proxy', paths: ['src/auth/'] },
  { name: 'protocol', holds: 'the engine: lifecycle, the method handlers, the request scope, sessions', paths: ['src/protocol/'] },
  {
    name: 'tasks',
    holds: 'task stores, the task runner and the task methods, plugged into the protocol as a feature',
    paths: ['src/tasks/'],
  },
  {
    name: 'skills',
    holds: 'Agent Skills (SEP-2640): skill folders and skills in code, their catalog and methods, as a feature',
    paths: ['src/skills/'],
  },
  {
    name: 'policies',
    holds: 'call policies (rate limits, idempotency, the result cache, timeouts, concurrency) and their in-memory store',
    paths: ['src/policies/'],
  },
  {
    name: 'transports',
    holds: 'stdio, in-memory and Streamable HTTP (Koa, fetch), event stores, sessions over HTTP',
    paths: ['src/transports/'],
  },
  { name: 'client', holds: 'the MCP client and its transports', paths: ['src/client/'] },
  { name: 'testing', holds: 'the test client and the task and policy store contract suites', paths: ['src/testing/'] },
  { name: 'composition', holds: 'mounting modules under a prefix and proxying other servers', paths: ['src/composition/'] },
  {
    name: 'kernel',
    holds: 'McpApplication and @McpModule: container, bootstrap, options, serving, logging, the scale-out port',
    paths: ['src/kernel/'],
  },
  {
    name: 'serving',
    holds: 'what a process brings to an application from its own entry point: front doors (stdio, HTTP, fetch), mounts and proxies',
    paths: ['src/serving/'],
  },
  { name: 'redis', holds: "the Redis stores and scale-out, adapters of the kernel's ports", paths: ['src/redis/'] },
  { name: 'cli', holds: 'the mcpkit command', paths: ['src/cli/'] },
  {
    name: 'entry points',
    holds: 'the public entry points of the package: nothing below imports them',
    paths: [
      'src/index.ts',
      'src/console-to-stderr.ts',
      'src/auth/index.ts',
      'src/client/index.ts',
      'src/stdio/index.ts',
      'src/http/index.ts',
      'src/fetch/index.ts',
      'src/compose/index.ts',
      'src/stores/index.ts',
      'src/redis/index.ts',
      'src/testing/index.ts',
    ],
  },
];

/** The layer of a file: that of the longest path holding it (undefined when no layer does). */
export function layerOf(file: string, layers: readonly Layer[] = LAYERS): number | undefined {
  let best: { index: number; length: number } | undefined;
  layers.forEach((layer, index) => {
    for (const path of layer.paths) {
      const holds = path.endsWith('/') ? file.startsWith(path) : file === path;
      if (holds && (!best || path.length > best.length)) best = { index, length: path.length };
    }
  });
  return best?.index;
}
