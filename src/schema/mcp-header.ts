import { PerRequestErrorCode } from '../mcp/eras';
import { McpError } from '../mcp/mcp.error';

/**
 * `x-mcp-header` (MCP 2026-07-28, SEP-2243): a tool input property whose value a client mirrors into
 * an `Mcp-Param-{Name}` HTTP header, so that intermediaries can route on it without reading the body.
 * This module holds the annotations `@McpHeader` records, the definition rules of the spec, and the
 * server's check that each mirrored header matches the body.
 */
export const X_MCP_HEADER = 'x-mcp-header';

type Ctor = abstract new (...args: never[]) => unknown;
const annotations = new WeakMap<object, Map<string, string>>();

/** Records that `property` of `cls` is mirrored into `Mcp-Param-{name}`. */
export function recordMcpHeader(cls: object, property: string, name: string): void {
  let own = annotations.get(cls);
  if (!own) annotations.set(cls, (own = new Map<string, string>()));
  own.set(property, name);
}

/** The header name `@McpHeader` gave a property of `cls` (or of a base class), if any. */
export function mcpHeaderOf(cls: Ctor, property: string): string | undefined {
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    const name = annotations.get(c)?.get(property);
    if (name !== undefined) return name;
  }
  return undefined;
}

/** RFC 9110 `1*tchar`. */
const TCHARS = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);

/**
 * The param a method's `Mcp-Name` header mirrors (`params.name`, or `params.uri` for resources/read).
 * A switch, not a lookup table: a table inherits `constructor`, `toString` and `__proto__`, which a
 * client may send as its method.
 */
export function namedParam(method: string): 'name' | 'uri' | 'taskId' | undefined {
  switch (method) {
    case 'tools/call':
    case 'prompts/get':
      return 'name';
    case 'resources/read':
      return 'uri';
    case 'tasks/get':
    case 'tasks/update':
    case 'tasks/cancel':
      return 'taskId';
    default:
      return undefined;
  }
}

/** An annotated property: its path of `properties` keys from the root, and its header name. */
export interface ParamHeader {
  readonly path: readonly string[];
  readonly name: string;
}

/**
 * The `x-mcp-header` annotations of a tool's inputSchema, checked against the spec's rules: a token
 * name, unique case-insensitively, on a string, integer or boolean property reachable from the root
 * through `properties` keys only. Throws a TypeError naming the first problem.
 */
export function paramHeaders(inputSchema: object): ParamHeader[] {
  const found: ParamHeader[] = [];
  walk(inputSchema, [], true, found);
  const seen = new Map<string, string>();
  for (const h of found) {
    const where = h.path.join('.');
    if (typeof h.name !== 'string' || !TCHARS.test(h.name))
      throw new TypeError(
        `x-mcp-header ${JSON.stringify(h.name)} of "${where}" is not an HTTP header token (letters, digits, !#$%&'*+-.^_\`|~)`,
      );
    const other = seen.get(h.name.toLowerCase());
    if (other !== undefined)
      throw new TypeError(`x-mcp-header "${h.name}" of "${where}" is already used by "${other}" (header names are case-insensitive)`);
    seen.set(h.name.toLowerCase(), where);
  }
  return found;
}

const cached = new WeakMap<object, ParamHeader[]>();

/** `paramHeaders` of a tool definition's (frozen) inputSchema, computed once. */
export function paramHeadersOf(inputSchema: object): ParamHeader[] {
  let found = cached.get(inputSchema);
  if (!found) cached.set(inputSchema, (found = paramHeaders(inputSchema)));
  return found;
}

function walk(node: unknown, path: string[], reachable: boolean, found: ParamHeader[]): void {
  if (typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) {
    for (const item of node) walk(item, path, false, found);
    return;
  }
  const schema = node as Record<string, unknown>;
  if (X_MCP_HEADER in schema) {
    const where = path.join('.') || '(root)';
    if (!reachable || path.length === 0)
      throw new TypeError(`x-mcp-header on "${where}" is not reachable from the root through \`properties\` alone`);
    if (typeof schema.type !== 'string' || !HEADER_TYPES.has(schema.type)) {
      throw new TypeError(
        `x-mcp-header on "${where}" needs a string, integer or boolean property (its type is ${JSON.stringify(schema.type ?? null)})`,
      );
    }
    found.push({ path: [...path], name: schema[X_MCP_HEADER] as string });
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [prop, sub] of Object.entries(value)) walk(sub, [...path, prop], reachable, found);
    } else if (key !== X_MCP_HEADER && key !== 'const' && key !== 'default' && key !== 'enum' && key !== 'examples') {
      walk(value, path, false, found);
    }
  }
}

/**
 * A header value, decoded when it uses the `=?base64?…?=` sentinel (strictly: the base64 alphabet,
 * with padding, and UTF-8 content); undefined when the sentinel is malformed.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  if (!raw.startsWith('=?base64?') || !raw.endsWith('?=') || raw.length < 11) return raw;
  const encoded = raw.slice(9, -2);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return undefined;
  const decoded = Buffer.from(encoded, 'base64');
  const text = decoded.toString('utf8');
  // Bytes that are not UTF-8 do not survive the round trip: such a value cannot match any body.
  return Buffer.from(text, 'utf8').equals(decoded) ? text : undefined;
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/**
 * The server's check of a 2026-07-28 tools/call over HTTP: every annotated property that has a value
 * in the arguments comes with its `Mcp-Param-{Name}` header, whose (decoded) value equals it: a
 * string exactly, an integer numerically, a boolean as `true`/`false`. A header for a property the
 * arguments lack is a mismatch too. Returns the -32020 error to answer with (HTTP 400), if any.
 */
export function checkParamHeaders(
  headers: ParamHeader[],
  args: Record<string, unknown> | undefined,
  received: Headers,
): McpError | undefined {
  for (const { path, name } of headers) {
    const value = valueAt(args, path);
    const header = received[`mcp-param-${name.toLowerCase()}`];
    const raw = Array.isArray(header) ? header.join(', ') : header;
    const where = path.join('.');
    if (value === undefined || value === null) {
      if (raw !== undefined) return mismatch(`Mcp-Param-${name} is set but the arguments have no "${where}"`);
      continue;
    }
    if (raw === undefined) return mismatch(`the Mcp-Param-${name} header is required: the arguments have "${where}"`);
    // Field values are visible ASCII, space and tab; anything else had to be base64-encoded.
    if (!/^[\x20-\x7e\t]*$/.test(raw))
      return mismatch(`Mcp-Param-${name} holds characters a header value cannot (encode it as =?base64?…?=)`);
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return mismatch(`Mcp-Param-${name} is not a valid =?base64?…?= value`);
    if (!matches(decoded, value)) return mismatch(`Mcp-Param-${name} header does not match the value of "${where}" in the arguments`);
  }
  return undefined;
}

function valueAt(args: Record<string, unknown> | undefined, path: readonly string[]): unknown {
  let node: unknown = args;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.prototype.hasOwnProperty.call(node, key))
      return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function matches(header: string, value: unknown): boolean {
  if (typeof value === 'string') return header === value;
  if (typeof value === 'number') return /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(header) && Number(header) === value;
  if (typeof value === 'boolean') return header === String(value);
  return false;
}

function mismatch(why: string): McpError {
  return new McpError(PerRequestErrorCode.HeaderMismatch, `Header mismatch: ${why}`);
}
