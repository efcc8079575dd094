type Server = { url: string };
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

/** A raw JSON-RPC answer: the HTTP status and the message (from a JSON body or the stream's answer). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw JSON-RPC answers
export type Answer = { status: number; json: any };

/**
 * A 2025-11-25 session opened on `server` and shared through the scale-out backplane: `post` sends a
 * request with its id to any instance and reads the answer, as JSON or as the one answer of an SSE stream.
 */
export async function scaleOutSession(
  server: Server,
): Promise<{ id: string | null; post: (target: Server, body: unknown) => Promise<Answer> }> {
  const init = await fetch(server.url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'scale-out', version: '1' } },
    }),
  });
  const id = init.headers.get('mcp-session-id');
  await init.text();
  const post = async (target: Server, body: unknown): Promise<Answer> => {
    const res = await fetch(target.url, {
      method: 'POST',
      headers: { ...HEADERS, ...(id ? { 'mcp-session-id': id } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      return { status: res.status, json: text ? JSON.parse(text) : undefined };
    }
    const messages = text
      .split('\n')
      .filter((line) => line.startsWith('data:') && line.length > 5)
      .map((line) => JSON.parse(line.slice(5)) as { id?: unknown });
    return { status: res.status, json: messages.find((m) => m.id === (body as { id: unknown }).id) };
  };
  return { id, post };
}

/** Starts a task of the fixture's `sleeper` tool (50 ms a step) on `server`; resolves with its id. */
export async function startSleeper(
  session: Awaited<ReturnType<typeof scaleOutSession>>,
  server: Server,
  steps: number,
  id: number,
): Promise<string> {
  const created = await session.post(server, {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'sleeper', arguments: { events: steps }, task: { ttl: 120_000 } },
  });
  const taskId = created.json?.result?.task?.taskId as string | undefined;
  if (!taskId) throw new Error(`no task: ${JSON.stringify(created.json)}`);
  return taskId;
}
