import { parseSse } from './http-app';

type Server = { url: string };
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

/**
 * A raw JSON-RPC answer: the HTTP status and the message (from a JSON body or the stream's answer);
 * for a stream, also every event it carried, with its id.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw JSON-RPC answers
export type Answer = { status: number; json: any; events?: { id?: string; message: any }[] };

/**
 * A 2025-11-25 session opened on `server` and shared through the scale-out backplane: `post` sends a
 * request with its id to any instance and reads the answer, as JSON or as the one answer of an SSE stream.
 */
export async function scaleOutSession(server: Server): Promise<{
  id: string | null;
  /** The body of the initialize's answer (a JSON-RPC error when no session was made). */
  initialized: string;
  post: (target: Server, body: unknown) => Promise<Answer>;
  resume: (target: Server, lastEventId: string) => Promise<Answer>;
}> {
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
  const initText = await init.text();
  // A session that did not open is the failure to report, not the 400s of every request sent without it.
  if (init.status !== 200) throw new Error(`initialize on ${server.url} answered ${init.status}: ${initText.slice(0, 300)}`);
  const headers = { ...HEADERS, ...(id ? { 'mcp-session-id': id } : {}) };
  /** Reads the whole answer (a stream until it ends); `requestId` picks the stream's answer. */
  const read = async (res: Response, requestId: unknown): Promise<Answer> => {
    const text = await res.text();
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      return { status: res.status, json: text ? JSON.parse(text) : undefined };
    }
    const events = parseSse(text)
      .filter((e) => e.data)
      .map((e) => ({ id: e.id, message: JSON.parse(e.data) as { id?: unknown } }));
    return { status: res.status, json: events.find((e) => e.message.id === requestId)?.message, events };
  };
  const post = async (target: Server, body: unknown): Promise<Answer> =>
    read(await fetch(target.url, { method: 'POST', headers, body: JSON.stringify(body) }), (body as { id: unknown }).id);
  /** Resumes a stream with GET and Last-Event-ID; `json` is the first response it carries. */
  const resume = async (target: Server, lastEventId: string): Promise<Answer> => {
    const answer = await read(await fetch(target.url, { headers: { ...headers, 'last-event-id': lastEventId } }), undefined);
    answer.json = answer.events?.find((e) => 'result' in e.message || 'error' in e.message)?.message;
    return answer;
  };
  return { id, initialized: initText, post, resume };
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
