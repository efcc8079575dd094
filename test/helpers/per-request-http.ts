/** Raw 2026-07-28 requests over real HTTP: headers derived from the body as a conforming client would, each overridable. */

export const PER_REQUEST = '2026-07-28';

export function envelope(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': PER_REQUEST,
    'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, sampling: {}, roots: {} },
    ...extra,
  };
}

let nextId = 1;

/** A per-request-era request body: params get the full envelope unless `_meta` is given. */
export function perRequestBody(
  method: string,
  params: Record<string, unknown> = {},
  id: number | string = nextId++,
): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method, params: '_meta' in params ? params : { ...params, _meta: envelope() } };
}

/** Headers a conforming client sends for `body`; `overrides` replace (or, with undefined, remove) them. */
export function perRequestHeaders(body: unknown, overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PER_REQUEST,
  };
  const b = body as { method?: string; params?: Record<string, unknown> };
  if (b && typeof b === 'object' && !Array.isArray(b) && b.method) {
    headers['mcp-method'] = b.method;
    const named =
      b.method === 'resources/read'
        ? b.params?.uri
        : b.method === 'tools/call' || b.method === 'prompts/get'
          ? b.params?.name
          : b.method.startsWith('tasks/')
            ? b.params?.taskId
            : undefined;
    if (typeof named === 'string') headers['mcp-name'] = encodeName(named);
  }
  for (const [k, v] of Object.entries(overrides)) headers[k.toLowerCase()] = v;
  return Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined));
}

/** A header value as the spec's clients encode it: as is when plain visible ASCII, else `=?base64?…?=`. */
export function encodeName(value: string): string {
  return /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

export interface RawReply {
  status: number;
  contentType: string;
  /** The JSON-RPC response (the last one of an SSE body). */
  body: {
    id?: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: Record<string, unknown> };
  } & Record<string, unknown>;
}

export async function postRaw(url: string, body: unknown, headers: Record<string, string> = perRequestHeaders(body)): Promise<RawReply> {
  const res = await fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const contentType = res.headers.get('content-type') ?? '';
  const text = await res.text();
  if (contentType.includes('text/event-stream')) {
    const frames = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => JSON.parse(l.slice(5)) as RawReply['body']);
    return {
      status: res.status,
      contentType,
      body: frames.filter((f) => 'result' in f || 'error' in f).pop() ?? frames[frames.length - 1],
    };
  }
  return { status: res.status, contentType, body: text ? (JSON.parse(text) as RawReply['body']) : {} };
}

/** Posts a per-request-era request with conforming headers. */
export function postPerRequest(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  overrides: Record<string, string | undefined> = {},
): Promise<RawReply> {
  const body = perRequestBody(method, params);
  return postRaw(url, body, perRequestHeaders(body, overrides));
}
