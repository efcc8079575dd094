import { readFileSync } from 'node:fs';
import { type DynamicTool, type McpApplication, type McpContext, ToolError } from '../../src';

/**
 * Tools generated at startup from an OpenAPI 3.1 document: one tool per operation, registered with
 * `app.addTool()`. A deliberately small generator (path and query parameters, JSON bodies, JSON
 * responses, no `$ref`) that fails at startup, with a clear message, on anything it does not handle.
 */

/** The parts of an OpenAPI 3.1 document this generator reads. */
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
}

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  description?: string;
  schema?: Record<string, unknown>;
}

interface JsonContent {
  content?: Record<string, { schema?: Record<string, unknown>; example?: unknown; examples?: Record<string, { value?: unknown }> }>;
}

export interface OpenApiOperation {
  operationId: string;
  summary?: string;
  description?: string;
  parameters?: OpenApiParameter[];
  requestBody?: JsonContent & { required?: boolean; description?: string };
  responses: Record<string, JsonContent & { description?: string }>;
}

export interface OpenApiToolsOptions {
  /** Where the API lives (e.g. `https://glossary.example.com/v1`). Without it, tools answer with the documented examples ("mock mode"). */
  baseUrl?: string;
  /** The fetch to use (default: the global one); tests and proxies can pass their own. */
  fetch?: typeof fetch;
  /** How long one request may take (default 10 s); the client cancelling the call aborts it too. */
  timeoutMs?: number;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
type Method = (typeof METHODS)[number];

/** Reads and parses an OpenAPI document from a JSON file. */
export function loadOpenApiDocument(file: string): OpenApiDocument {
  return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
}

/** Registers one tool per operation of `document`; returns the names of the tools. Throws before registering anything if the document is not usable. */
export function registerOpenApiTools(
  app: Pick<McpApplication, 'addTool'>,
  document: OpenApiDocument,
  options: OpenApiToolsOptions = {},
): string[] {
  if (typeof document !== 'object' || document === null || typeof document.openapi !== 'string' || !document.openapi.startsWith('3.')) {
    throw new Error('OpenAPI: expected an OpenAPI 3.x document (an object with "openapi": "3.1.0")');
  }
  if (typeof document.paths !== 'object' || document.paths === null) throw new Error('OpenAPI: the document has no "paths"');
  if (JSON.stringify(document).includes('"$ref"'))
    throw new Error('OpenAPI: "$ref" is not supported by this generator; inline the schemas');
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item ?? {})
      .filter(([method]) => METHODS.includes(method as Method))
      .map(([method, operation]) => ({ path, method: method as Method, operation })),
  );
  if (operations.length === 0) throw new Error('OpenAPI: the document has no operations');
  // Everything is checked (and every tool built) before the first one is registered.
  const tools = operations.map(({ path, method, operation }) => toolFor(path, method, operation, options));
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) throw new Error(`OpenAPI: two operations become the tool "${tool.name}"`);
    names.add(tool.name);
  }
  for (const tool of tools) app.addTool(tool);
  return [...names];
}

function toolFor(path: string, method: Method, operation: OpenApiOperation, options: OpenApiToolsOptions): DynamicTool {
  const where = `OpenAPI ${method.toUpperCase()} ${path}`;
  if (typeof operation?.operationId !== 'string' || operation.operationId.length === 0)
    throw new Error(`${where}: every operation needs an operationId (it names the tool)`);
  const name = operation.operationId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128);
  const parameters = operation.parameters ?? [];
  const properties: Record<string, object> = {};
  const required: string[] = [];
  for (const p of parameters) {
    if (p.in !== 'path' && p.in !== 'query')
      throw new Error(`${where}: parameter "${p.name}" is in ${String(p.in)}; only path and query parameters are supported`);
    if (typeof p.name !== 'string' || properties[p.name])
      throw new Error(`${where}: parameter names must be unique strings (${String(p.name)})`);
    if (p.in === 'path' && !path.includes(`{${p.name}}`)) throw new Error(`${where}: path parameter "${p.name}" is not in the path`);
    properties[p.name] = { ...(p.description ? { description: p.description } : {}), ...(p.schema ?? { type: 'string' }) };
    if (p.required || p.in === 'path') required.push(p.name);
  }
  for (const [, variable] of path.matchAll(/\{([^}]+)\}/g)) {
    if (!parameters.some((p) => p.in === 'path' && p.name === variable))
      throw new Error(`${where}: the path variable {${variable}} has no parameter`);
  }
  if (operation.requestBody) {
    const schema = operation.requestBody.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${where}: the request body must be application/json with a schema`);
    if (properties.body) throw new Error(`${where}: a parameter named "body" collides with the request body`);
    properties.body = { ...(operation.requestBody.description ? { description: operation.requestBody.description } : {}), ...schema };
    if (operation.requestBody.required) required.push('body');
  }
  const success = successResponse(where, operation);
  const outputSchema = success.schema?.type === 'object' ? (success.schema as DynamicTool['outputSchema']) : undefined;
  if (!options.baseUrl && success.example === undefined)
    throw new Error(`${where}: mock mode (no baseUrl) needs an example in the success response`);
  const annotations: DynamicTool['annotations'] =
    method === 'get' ? { readOnlyHint: true } : method === 'put' || method === 'delete' ? { idempotentHint: true } : {};
  const call = options.baseUrl ? httpCall(options.baseUrl, path, method, parameters, options) : () => success.example;
  return {
    name,
    title: operation.summary,
    description: [operation.summary, operation.description].filter(Boolean).join('\n\n') || `${method.toUpperCase()} ${path}`,
    inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
    outputSchema,
    annotations,
    // With an output schema the data becomes structuredContent; otherwise the JSON is the text.
    handler: async (args, ctx) => {
      const data = await call(args, ctx);
      if (data === undefined) return { content: [{ type: 'text', text: 'Done (no content)' }] };
      return outputSchema ? data : { content: [{ type: 'text', text: JSON.stringify(data) }] };
    },
  };
}

/** The first 2xx response: its JSON schema and example (`example`, or the first of `examples`). */
function successResponse(where: string, operation: OpenApiOperation): { schema?: Record<string, unknown>; example?: unknown } {
  if (typeof operation.responses !== 'object' || operation.responses === null) throw new Error(`${where}: the operation has no responses`);
  const status = Object.keys(operation.responses).find((s) => /^2(\d\d|XX)$/.test(s));
  if (!status) throw new Error(`${where}: the operation has no 2xx response`);
  const json = operation.responses[status].content?.['application/json'];
  return { schema: json?.schema, example: json?.example ?? Object.values(json?.examples ?? {})[0]?.value };
}

/** A handler that performs the request: path variables encoded, query string, JSON body, a timeout. */
function httpCall(baseUrl: string, path: string, method: Method, parameters: OpenApiParameter[], options: OpenApiToolsOptions) {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return async (args: Record<string, unknown>, ctx: McpContext): Promise<unknown> => {
    const url = new URL(baseUrl.replace(/\/+$/, '') + path.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(String(args[n]))));
    for (const p of parameters.filter((q) => q.in === 'query' && args[q.name] !== undefined)) {
      const value = args[p.name];
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(p.name, String(v));
    }
    const request = `${method.toUpperCase()} ${path}`;
    let response: Response;
    try {
      response = await doFetch(url, {
        method: method.toUpperCase(),
        headers: { accept: 'application/json', ...(args.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: args.body !== undefined ? JSON.stringify(args.body) : undefined,
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]),
      });
    } catch (error) {
      if (ctx.signal.aborted) throw error; // the client cancelled: nobody reads the result
      const reason = (error as Error).name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : 'could not reach the API';
      throw new ToolError(`${request}: ${reason}`);
    }
    const text = await response.text();
    if (!response.ok) throw new ToolError(`${request} failed with HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
    if (text === '') return undefined; // 204 No Content
    try {
      return JSON.parse(text);
    } catch {
      throw new ToolError(`${request} answered something that is not JSON`);
    }
  };
}
